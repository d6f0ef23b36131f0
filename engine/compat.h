// Compatibility of a checkpoint's topology signature with a workflow (docs/engine-semantics.md §3).
//
// Strict: the signatures must be equal: the same executors and types, the same edges with the same
// EdgeIds, kinds, ordered sources and sinks and condition/assigner flags (so edges match one to one
// by id), the same ports with their types, outputs and start executor. A mismatch names every
// difference.
// edge_id_blind_matching reproduces MAF's WorkflowInfo.IsMatch: EdgeIds ignored, edges matched per
// source as a set (one to one unless non_bijective_edge_matching), executors the workflow lacks
// skipped.
// Thread-safety: pure functions.
#pragma once

#include "engine/message.h"
#include "engine/profile.h"
#include "engine/status.h"
#include "engine/workflow.h"

namespace stepfault {

// Ok, or kCorruption naming the first member of a topology signature (the shape
// Workflow::signature() writes) that is missing or has the wrong type. The checkpoint decoder calls
// it, so a checkpoint whose checksum is valid but whose signature is malformed is rejected as
// damaged before the engine reads it; CheckCompatibility calls it too, so it never reads an
// unvalidated member.
Status ValidateWorkflowSignature(const Json& signature, const std::string& path);

// Ok, or kIncompatible with a message that starts with MAF's wording and lists what differs;
// kCorruption when the checkpoint's signature is malformed.
Status CheckCompatibility(const Json& checkpoint_signature, const Workflow& workflow,
                          const EngineProfile& profile);

}  // namespace stepfault
