// The vocabulary of the Probe seam: the name of every fault point any code may hit, as a constant.
// Every Hit() call site names its point through one of these (never a string of its own), and
// faults/points.cc registers each with its meaning; faults/points_test.cc scans the sources so a
// point cannot be hit without being registered, nor registered without a constant here. The names
// are stable: plans, reports and replay commands use them.
// Thread-safety: constants.
#pragma once

namespace stepfault::points {

// the engine (engine/run_step.cc, engine/run_restore.cc)
inline constexpr char kStepHandlersAfter[] = "step.handlers.after";
inline constexpr char kCheckpointCommitBefore[] = "checkpoint.commit.before";
inline constexpr char kCheckpointCommitAfter[] = "checkpoint.commit.after";
inline constexpr char kRestoreImportBefore[] = "restore.import.before";
// Hit right before the restored state is first written into the run (strict: the swap of the
// state built aside; MAF's phased import: its first phase), after every check that may refuse the
// checkpoint. A witness of "state was imported" that does not rely on the restore's return value
// (INV-TOPOLOGY: an incompatible workflow is refused before it).
inline constexpr char kRestoreStateApply[] = "restore.state.apply";
inline constexpr char kRestoreImportAfter[] = "restore.import.after";
inline constexpr char kRestoreNotifyBefore[] = "restore.notify.before";

// the stores (engine/store_prune.cc)
inline constexpr char kStorePruneBefore[] = "store.prune.before";
inline constexpr char kStorePruneDelete[] = "store.prune.delete";

// file-system operations, hit as "<name>[<role>]" by the simulated file system, ProbedEnv and the
// SQLite VFS
inline constexpr char kFsCreate[] = "fs.create";
inline constexpr char kFsWrite[] = "fs.write";
inline constexpr char kFsFsync[] = "fs.fsync";
inline constexpr char kFsTruncate[] = "fs.truncate";
inline constexpr char kFsRename[] = "fs.rename";
inline constexpr char kFsUnlink[] = "fs.unlink";
inline constexpr char kFsDirsync[] = "fs.dirsync";

// hosts and business stores (scenarios/)
inline constexpr char kHostResume[] = "host.resume";
inline constexpr char kReceiptPublishBefore[] = "receipt.publish.before";
inline constexpr char kReceiptPublishAfter[] = "receipt.publish.after";
inline constexpr char kDecisionRecordAfter[] = "decision.record.after";
inline constexpr char kEffectCommitBefore[] = "effect.commit.before";
inline constexpr char kEffectCommitAfter[] = "effect.commit.after";
inline constexpr char kOutputPublishBefore[] = "output.publish.before";

// Every name above, in registry order.
inline constexpr const char* kAll[] = {
    kStepHandlersAfter,
    kCheckpointCommitBefore,
    kCheckpointCommitAfter,
    kRestoreImportBefore,
    kRestoreStateApply,
    kRestoreImportAfter,
    kRestoreNotifyBefore,
    kStorePruneBefore,
    kStorePruneDelete,
    kFsCreate,
    kFsWrite,
    kFsFsync,
    kFsTruncate,
    kFsRename,
    kFsUnlink,
    kFsDirsync,
    kHostResume,
    kReceiptPublishBefore,
    kReceiptPublishAfter,
    kDecisionRecordAfter,
    kEffectCommitBefore,
    kEffectCommitAfter,
    kOutputPublishBefore,
};

}  // namespace stepfault::points
