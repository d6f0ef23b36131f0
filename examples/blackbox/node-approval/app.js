// An approval-style flow for Stepfault's black-box mode (docs/blackbox.md, example 3).
//   node app.js request DIR OPID     register a pending approval (state.json, written atomically)
//   node app.js approve DIR VARIANT  record the business effect in SQLite, then mark the request
//                                    completed; VARIANT is "idempotent" (the effect is keyed by the
//                                    operation id: a replay records nothing new) or "plain" (a replay
//                                    inserts a second effect row)
//   node app.js resume DIR VARIANT   recovery: finish a request that is not completed yet
// A crash after the effect committed but before state.json says "completed" makes recovery replay
// the approval; only the idempotent variant survives that without a duplicate effect.
'use strict';
const fs = require('fs');
const path = require('path');
const Database = require('better-sqlite3');

function writeAtomic(dir, name, value) {
  const tmp = path.join(dir, name + '.tmp');
  const fd = fs.openSync(tmp, 'w');
  fs.writeSync(fd, JSON.stringify(value) + '\n');
  fs.fsyncSync(fd);
  fs.closeSync(fd);
  fs.renameSync(tmp, path.join(dir, name));
  const dfd = fs.openSync(dir, 'r');
  fs.fsyncSync(dfd);
  fs.closeSync(dfd);
}

function readState(dir) {
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, 'state.json'), 'utf8'));
  } catch (e) {
    return null;
  }
}

function openDb(dir) {
  const db = new Database(path.join(dir, 'effects.db'));
  db.pragma('journal_mode = DELETE');
  db.pragma('synchronous = EXTRA');
  db.exec(`CREATE TABLE IF NOT EXISTS effects_idem(op_id TEXT PRIMARY KEY, item TEXT NOT NULL);
           CREATE TABLE IF NOT EXISTS effects_plain(op_id TEXT NOT NULL, item TEXT NOT NULL);`);
  return db;
}

function approve(dir, variant) {
  const state = readState(dir);
  if (state === null) throw new Error('no pending request in ' + dir);
  if (state.status === 'completed') return state;
  const db = openDb(dir);
  if (variant === 'idempotent') {
    db.prepare('INSERT INTO effects_idem(op_id, item) VALUES (?, ?) ON CONFLICT(op_id) DO NOTHING')
      .run(state.op_id, 'backlog item for ' + state.op_id);
  } else {
    db.prepare('INSERT INTO effects_plain(op_id, item) VALUES (?, ?)').run(state.op_id, 'backlog item for ' + state.op_id);
  }
  db.close();
  state.status = 'completed';
  writeAtomic(dir, 'state.json', state);
  process.stdout.write('approved ' + state.op_id + '\n');
  return state;
}

const [cmd, dir, arg] = process.argv.slice(2);
if (cmd === 'request') {
  writeAtomic(dir, 'state.json', { op_id: arg, status: 'waiting' });
  process.stdout.write('requested ' + arg + '\n');
} else if (cmd === 'approve') {
  approve(dir, arg);
} else if (cmd === 'resume') {
  const state = readState(dir);
  if (state === null) writeAtomic(dir, 'state.json', { op_id: 'op-1', status: 'waiting' });
  approve(dir, arg);
} else {
  process.stderr.write('usage: node app.js request|approve|resume DIR ARG\n');
  process.exit(2);
}
