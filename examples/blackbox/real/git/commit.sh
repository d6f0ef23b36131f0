#!/bin/sh
# One unit of work for git: change file.txt, commit it, and acknowledge the commit's id once
# `git commit` returned (what a script that pushes or reports "saved" would rely on).
# Fixed identity and dates make every object id the same in every run (replayable windows).
set -e
export HOME="$STEPFAULT_DIR/.." GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.org
export GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.org
export GIT_AUTHOR_DATE="2026-01-0${1}T00:00:00Z" GIT_COMMITTER_DATE="2026-01-0${1}T00:00:00Z"
cd "$STEPFAULT_DIR"
echo "line $1" >> file.txt
git add file.txt
git commit -q -m "commit $1"
echo "committed $(git rev-parse HEAD)" >> "$STEPFAULT_ACK_FILE"
