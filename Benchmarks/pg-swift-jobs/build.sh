#!/usr/bin/env bash
# Builds swift-jobs-pg-bench (release). On a machine whose github.com packages come from a local
# copy without swift-jobs (this project's CI machines), the `fetch` tool's snapshots in
# /work/.mirror serve as SwiftPM mirrors; elsewhere SwiftPM clones them as usual.
set -euo pipefail
cd "$(dirname "$0")"
if [ -d /work/.mirror/hummingbird-project+swift-jobs/repo ]; then
    mkdir -p /work/.mirror/by-name
    for r in swift-jobs swift-jobs-postgres postgres-migrations; do
        # SwiftPM names a local package after its folder: one folder per package.
        ln -sfn "/work/.mirror/hummingbird-project+$r/repo" "/work/.mirror/by-name/$r"
        swift package config set-mirror --original "https://github.com/hummingbird-project/$r.git" --mirror "/work/.mirror/by-name/$r"
    done
fi
nice -n 19 swift build -c release
