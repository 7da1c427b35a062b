#!/bin/sh
# A folder of vectors with one subfolder that cannot be listed (chmod 000), walked by `run` and
# `validate --corpus` as an unprivileged user: the subfolder is reported by its path, every other
# vector is still checked, and the exit status is 2.
#   unreadable_folder_test.sh OPCONFORM VECTOR WORK
# Exit 77 (skipped) when it cannot run as an unprivileged user.
set -u
opconform=$1 vector=$2 work=$3

as_user=""
if [ "$(id -u)" = 0 ]; then
  command -v setpriv >/dev/null 2>&1 || { echo "skipped: root, and no setpriv to drop to nobody"; exit 77; }
  as_user="setpriv --reuid=nobody --regid=nogroup --clear-groups"
  $as_user true 2>/dev/null || as_user="setpriv --reuid=nobody --regid=nobody --clear-groups"
  $as_user true 2>/dev/null || { echo "skipped: cannot become nobody"; exit 77; }
fi

rm -rf "$work" && mkdir -p "$work/v/a-sub" "$work/v/m-locked" "$work/v/z-sub" || exit 1
i=0
while [ $i -lt 48 ]; do
  case $((i % 3)) in 0) d="$work/v" ;; 1) d="$work/v/a-sub" ;; *) d="$work/v/z-sub" ;; esac
  cp "$vector" "$d/v$i.json" || exit 1
  i=$((i + 1))
done
cp "$vector" "$work/v/m-locked/hidden1.json" && cp "$vector" "$work/v/m-locked/hidden2.json" || exit 1
chmod 000 "$work/v/m-locked"
chmod -R a+rX "$work/v" 2>/dev/null; chmod 000 "$work/v/m-locked"
chmod 755 "$work"

fail() { echo "FAIL: $*"; chmod 755 "$work/v/m-locked"; exit 1; }

out=$(cd / && $as_user "$opconform" run "$work/v" 2>&1); rc=$?
echo "$out"
[ $rc = 2 ] || fail "run exited $rc, expected 2"
echo "$out" | grep -q "BAD  $work/v/m-locked: cannot list: Permission denied" || fail "run did not name the locked folder"
echo "$out" | grep -Eq "^total +48 +0 +0" || fail "run did not check the other 48 vectors"

out=$(cd / && $as_user "$opconform" validate --corpus "$work/v" --cases 0 2>&1); rc=$?
echo "$out"
[ $rc = 2 ] || fail "validate exited $rc, expected 2"
echo "$out" | grep -q "$work/v/m-locked: cannot list: Permission denied" || fail "validate did not name the locked folder"
echo "$out" | grep -q "^48 cases, 0 failed" || fail "validate did not check the other 48 vectors"

chmod 755 "$work/v/m-locked"
echo "ok"
