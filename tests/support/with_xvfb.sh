#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs a command on a fresh Xvfb display (bindery view's tests): picks a free display number,
# starts `Xvfb :N -screen 0 1024x768x24`, waits for its socket, runs the command with DISPLAY=:N
# and stops the server. Exit status: the command's; 125 when no Xvfb could be started.
set -u
command -v Xvfb >/dev/null || { echo "with_xvfb: Xvfb is not installed (Debian: xvfb)" >&2; exit 125; }
for attempt in $(seq 1 20); do
  n=$(( (RANDOM % 4000) + 100 ))
  [ -e "/tmp/.X$n-lock" ] || [ -e "/tmp/.X11-unix/X$n" ] && continue
  Xvfb ":$n" -screen 0 1024x768x24 -nolisten tcp >/dev/null 2>&1 &
  pid=$!
  for _ in $(seq 1 100); do
    [ -S "/tmp/.X11-unix/X$n" ] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.05
  done
  if [ -S "/tmp/.X11-unix/X$n" ] && kill -0 "$pid" 2>/dev/null; then
    DISPLAY=":$n" "$@"
    status=$?
    kill "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    exit "$status"
  fi
  kill "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
done
echo "with_xvfb: no Xvfb display could be started" >&2
exit 125
