"""Writes the zip-based and binary-header fixtures of testdata/documents.

Run from this directory with python3 (3.11): python3 gen_fixtures.py
Only the standard library is used; timestamps are fixed so reruns give the
same bytes.
"""

import struct
import zipfile

STAMP = (2024, 1, 1, 0, 0, 0)

CONTENT_TYPES_XLSX = """<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">
<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>
<Default Extension="xml" ContentType="application/xml"/>
<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>
<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>
</Types>
"""

ROOT_RELS_XLSX = """<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/>
</Relationships>
"""

WORKBOOK = """<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">
<sheets><sheet name="Arkusz1" sheetId="1" r:id="rId1"/></sheets>
</workbook>
"""

WORKBOOK_RELS = """<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/>
</Relationships>
"""

SHEET = """<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">
<sheetData>
<row r="1"><c r="A1" t="inlineStr"><is><t>Masa opakowania (g)</t></is></c><c r="B1"><v>12.5</v></c></row>
</sheetData>
</worksheet>
"""


def write_zip(path, entries):
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        for name, data in entries:
            info = zipfile.ZipInfo(name, date_time=STAMP)
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)


def xlsx_entries(sheet):
    return [
        ("[Content_Types].xml", CONTENT_TYPES_XLSX),
        ("_rels/.rels", ROOT_RELS_XLSX),
        ("xl/workbook.xml", WORKBOOK),
        ("xl/_rels/workbook.xml.rels", WORKBOOK_RELS),
        ("xl/worksheets/sheet1.xml", sheet),
    ]


# A valid minimal workbook.
write_zip("sample.xlsx", xlsx_entries(SHEET))

# The same workbook whose sheet is padded with 64 MiB of spaces inside the
# XML: about 65 KB on disk, expansion ratio about 1000:1.
padding = " " * (64 << 20)
write_zip("bomb.xlsx", xlsx_entries(SHEET.replace("<sheetData>", "<sheetData>" + padding)))

# A zip that is not an OOXML package.
write_zip("plain.zip", [("notes.txt", "Masa opakowania: 12,5 g\n")])

# An ELF64 header (x86-64 executable) followed by zero padding: enough for any
# type sniffer to recognise an executable, whatever the file name says.
elf = b"\x7fELF" + bytes([2, 1, 1, 0]) + bytes(8)
elf += struct.pack("<HHIQQQIHHHHHH", 2, 0x3E, 1, 0x401000, 64, 0, 0, 64, 56, 1, 64, 0, 0)
with open("renamed-executable.pdf", "wb") as f:
    f.write(elf + bytes(256 - len(elf)))
