#!/usr/bin/env bash
# Fails when a tracked C++ source differs from what clang-format (the checked-in .clang-format)
# makes of it. `make format` rewrites them.
set -euo pipefail
cd "$(dirname "$0")/.."
git ls-files -z '*.cc' '*.h' | xargs -0 clang-format --dry-run -Werror
echo "check-format: $(git ls-files '*.cc' '*.h' | wc -l) files formatted"
