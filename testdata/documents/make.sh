#!/bin/sh
# Rebuilds every fixture of testdata/documents from its source.
# Run from this directory: sh make.sh   (tool versions: see README.md)
set -eu
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# Polish text PDF (3 pages) and the same content as DOCX and legacy DOC.
soffice --headless --convert-to pdf:writer_web_pdf_Export --outdir "$out" measurements.html
cp "$out/measurements.pdf" measurements.pdf
soffice --headless --writer --convert-to 'docx:MS Word 2007 XML' --outdir "$out" measurements.html
cp "$out/measurements.docx" sample.docx
soffice --headless --writer --convert-to 'doc:MS Word 97' --outdir "$out" measurements.html
cp "$out/measurements.doc" legacy.doc

# A page that is only a picture of text: no text layer.
convert -size 1240x400 xc:white -font DejaVu-Sans -pointsize 40 -fill black \
  -annotate +60+120 'Masa opakowania: 12,5 g' -annotate +60+220 'Wymiary: 300 x 200 x 150 mm' \
  "$out/scanned.png"
img2pdf --pagesize A4 -o scanned.pdf "$out/scanned.png"

# Small images.
convert -size 16x16 xc:'#2e7d32' PNG24:sample.png
convert -size 16x16 xc:'#2e7d32' -quality 90 sample.jpg
convert -size 16x16 xc:'#2e7d32' -compress none sample.tiff

# Password-protected copy (user password "secret", AES-256).
qpdf --encrypt secret owner-secret 256 -- measurements.pdf encrypted.pdf

# Hand-written PDFs with an OpenAction; qpdf rebuilds the missing xref table
# (hence its "file is damaged" warnings, which --warning-exit-0 accepts).
# The "-objstm" variant hides the action dictionary inside a Flate-compressed
# object stream, where a plain byte scan cannot see /JavaScript.
qpdf --warning-exit-0 javascript.src.pdf javascript.pdf
qpdf --warning-exit-0 --object-streams=generate --compress-streams=y javascript.src.pdf javascript-objstm.pdf
qpdf --warning-exit-0 launch.src.pdf launch.pdf

# Text files: UTF-8 CSV and text, and the same text in Windows-1250.
iconv -f UTF-8 -t WINDOWS-1250 sample.txt > legacy-cp1250.txt

# Zip-based fixtures and the fake executable.
python3 gen_fixtures.py
