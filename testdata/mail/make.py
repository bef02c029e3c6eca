#!/usr/bin/env python3
"""Builds the e-mail fixtures of testdata/mail with Python's email package,
a mail composer independent of the Go code that reads them.
Run from this directory: python3 make.py   (Python 3.11 or later)."""

from email import policy
from email.charset import QP, Charset
from email.message import EmailMessage
from email.mime.application import MIMEApplication
from email.mime.message import MIMEMessage
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText
from email.utils import formatdate, make_msgid

PDF = open("../documents/measurements.pdf", "rb").read()
DATE = formatdate(1790000000, localtime=False)


def write(name, msg):
    with open(name, "wb") as f:
        f.write(msg.as_bytes(policy=policy.SMTP))


# A supplier's answer as a modern mailer writes it: a UTF-8 text body and
# a PDF whose Polish name is encoded per RFC 2231.
reply = EmailMessage()
reply["From"] = "Kartonex Oferty <oferty@kartonex.example>"
reply["To"] = "replies@ppwr.test"
reply["Subject"] = "Re: Prośba o dane opakowań"
reply["Date"] = DATE
reply["Message-ID"] = "<reply-pdf.1790000000@kartonex.example>"
reply.set_content("Dzień dobry,\nw załączniku deklaracja.\n")
reply.add_attachment(PDF, maintype="application", subtype="pdf", filename="Deklaracja zgodności.pdf")
write("reply-pdf.eml", reply)

# Names the way older mailers send them, and nesting: an RFC 2047
# windows-1250 name in Content-Type only, a quoted-printable text file, an
# inline image that is a file, a forwarded message with its own
# attachment, and a body part that is not a file.
outer = MIMEMultipart("mixed")
outer["From"] = "=?windows-1250?Q?Pawe=B3_Nowak?= <pawel@kartonex.example>"
outer["Subject"] = "=?windows-1250?Q?Odpowied=9F?="
outer["Date"] = DATE
outer["Message-ID"] = "<names.1790000000@kartonex.example>"
outer.attach(MIMEText("Treść wiadomości.", "plain", "utf-8"))
legacy = MIMEApplication(b"%PDF-1.4\n%%EOF\n", "pdf")
legacy.set_param("name", "=?windows-1250?Q?=A3=F3d=9F.pdf?=")
outer.attach(legacy)
qp = Charset("utf-8")
qp.body_encoding = QP
text = MIMEText("Masa opakowania: 12,5 g, zgodnie z normą\n", "plain", qp)
text.add_header("Content-Disposition", "attachment", filename="wartości.txt")
outer.attach(text)
image = MIMEApplication(b"\x89PNG\r\n\x1a\n", "png")
image.replace_header("Content-Type", "image/png")
image.add_header("Content-Disposition", "inline", filename="logo.png")
outer.attach(image)
forwarded = EmailMessage()
forwarded["From"] = "lab@badania.example"
forwarded["Subject"] = "Raport"
forwarded.set_content("Raport w załączniku.\n")
forwarded.add_attachment(b"raport", maintype="application", subtype="octet-stream", filename="raport.bin")
outer.attach(MIMEMessage(forwarded))
write("names.eml", outer)
