#!/usr/bin/env bash
# Rebuilds functions/document/fonts/wqy-microhei-gb2312.ttf, the CJK font the
# PDF report embeds, from Debian's fonts-wqy-microhei (WenQuanYi Micro Hei,
# Apache-2.0 or GPLv3 with the font exception: embedding allowed; licence
# beside the font). The subset keeps ASCII, Latin-1, general and CJK
# punctuation, full-width forms, arrows and the 7,445 characters of GB 2312
# (every hanzi of everyday Simplified Chinese), so the committed file stays
# small and `go build` needs nothing installed. Run as root on Debian.
set -euo pipefail
cd "$(dirname "$0")/.."
src=/usr/share/fonts/truetype/wqy/wqy-microhei.ttc
[ -e "$src" ] || { apt-get update -qq; DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fonts-wqy-microhei; }
# Debian's own Python, which python3-fonttools installs into (not a pyenv).
py=/usr/bin/python3
$py -c 'import fontTools' 2>/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-fonttools
chars=$(mktemp)
trap 'rm -f "$chars"' EXIT
$py - "$chars" <<'PY'
import sys
cs = set(chr(c) for c in range(0x20, 0x7f)) | set(chr(c) for c in range(0xa0, 0x100))
for r in [(0x2000, 0x206f), (0x2190, 0x21ff), (0x2200, 0x22ff), (0x3000, 0x303f), (0xff00, 0xffef), (0x2460, 0x24ff), (0x25a0, 0x25ff)]:
    cs |= set(chr(c) for c in range(r[0], r[1] + 1))
for hi in range(0xa1, 0xf8):
    for lo in range(0xa1, 0xff):
        try:
            cs.add(bytes([hi, lo]).decode("gb2312"))
        except UnicodeDecodeError:
            pass
open(sys.argv[1], "w", encoding="utf-8").write("".join(sorted(cs)))
PY
out=functions/document/fonts/wqy-microhei-gb2312.ttf
$py -m fontTools.subset "$src" --font-number=0 --text-file="$chars" --output-file="$out" \
  --layout-features='' --no-hinting --desubroutinize --name-IDs='*' --name-legacy --drop-tables+=DSIG
cp /usr/share/doc/fonts-wqy-microhei/copyright functions/document/fonts/LICENSE.wqy-microhei
ls -l "$out"
