#!/bin/sh
# What git promises after `git commit` returned: the repository is readable (fsck), and each
# acknowledged commit is in it and reachable from HEAD.
export HOME="$STEPFAULT_DIR/.." GIT_CONFIG_NOSYSTEM=1
cd "$STEPFAULT_DIR" || exit 1
acked=$(sed -n 's/^committed //p' "$STEPFAULT_ACKED")
if ! out=$(git fsck --full --no-dangling 2>&1); then
  echo "git fsck fails: $(echo "$out" | head -1)"
  exit 1
fi
for c in $acked; do
  git cat-file -e "$c^{commit}" 2>/dev/null || { echo "acknowledged commit $c is lost"; exit 1; }
  git merge-base --is-ancestor "$c" HEAD 2>/dev/null ||
    { echo "acknowledged commit $c is not reachable from HEAD"; exit 1; }
done
