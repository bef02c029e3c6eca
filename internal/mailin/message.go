package mailin

import (
	"bufio"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/mail"
	"net/textproto"
	"strings"

	"golang.org/x/text/encoding/htmlindex"

	"ppwr/internal/intake"
)

// Header is what a message's header says about it.
type Header struct {
	From      string // the address alone
	Subject   string // decoded
	MessageID string // without angle brackets
}

// Attachment is a file carried by a message. Body yields the decoded
// bytes and is valid only during the callback it is given to.
type Attachment struct {
	FileName    string
	ContentType string
	Body        io.Reader
}

// maxDepth bounds how deeply parts may nest: real mail nests a few
// levels (mixed, alternative, related, a forwarded message), a hostile
// message thousands.
const maxDepth = 16

// ErrMalformed wraps every way a message can fail to parse.
var ErrMalformed = errors.New("mailin: malformed message")

var words = &mime.WordDecoder{CharsetReader: charsetReader}

// charsetReader decodes the charsets real mail uses (windows-1250,
// iso-8859-2 and the like), beyond the few the standard library knows.
func charsetReader(charset string, input io.Reader) (io.Reader, error) {
	enc, err := htmlindex.Get(charset)
	if err != nil {
		return nil, fmt.Errorf("mailin: charset %q: %w", charset, err)
	}
	return enc.NewDecoder().Reader(input), nil
}

// ReadHeader parses a message's header alone.
func ReadHeader(r io.Reader) (Header, error) {
	msg, err := mail.ReadMessage(bufio.NewReader(r))
	if err != nil {
		return Header{}, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	return header(msg.Header), nil
}

func header(h mail.Header) Header {
	var out Header
	if from, err := (&mail.AddressParser{WordDecoder: words}).Parse(h.Get("From")); err == nil {
		out.From = from.Address
	}
	if subject, err := words.DecodeHeader(h.Get("Subject")); err == nil {
		out.Subject = subject
	} else {
		out.Subject = h.Get("Subject")
	}
	out.MessageID = strings.Trim(strings.TrimSpace(h.Get("Message-ID")), "<>")
	return out
}

// Attachments calls fn with each file of the message, in order: every
// part with a file name or sent as an attachment, at any depth, including
// inside forwarded messages. Text and HTML bodies are not files. It
// answers the message's header; an error of fn stops the walk and is
// answered as it is.
func Attachments(r io.Reader, fn func(Attachment) error) (Header, error) {
	msg, err := mail.ReadMessage(bufio.NewReader(r))
	if err != nil {
		return Header{}, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	w := &walker{fn: fn}
	return header(msg.Header), w.part(textproto.MIMEHeader(msg.Header), msg.Body, 0)
}

type walker struct {
	fn    func(Attachment) error
	count int
}

func (w *walker) part(h textproto.MIMEHeader, body io.Reader, depth int) error {
	if depth > maxDepth {
		return fmt.Errorf("%w: parts nested deeper than %d", ErrMalformed, maxDepth)
	}
	mediaType, params, err := mime.ParseMediaType(h.Get("Content-Type"))
	if err != nil {
		mediaType, params = "text/plain", nil
	}
	name := fileName(h, params)
	switch {
	case strings.HasPrefix(mediaType, "multipart/"):
		return w.multipart(body, params["boundary"], depth)
	case mediaType == "message/rfc822" && name == "":
		inner, err := mail.ReadMessage(bufio.NewReader(decoded(h, body)))
		if err != nil {
			return fmt.Errorf("%w: forwarded message: %v", ErrMalformed, err)
		}
		return w.part(textproto.MIMEHeader(inner.Header), inner.Body, depth+1)
	}
	disposition, _, _ := mime.ParseMediaType(h.Get("Content-Disposition"))
	if name == "" && disposition != "attachment" {
		return nil
	}
	w.count++
	if name == "" {
		name = fmt.Sprintf("attachment-%d", w.count)
	}
	content := &tracked{r: decoded(h, body)}
	err = w.fn(Attachment{FileName: name, ContentType: mediaType, Body: content})
	if err != nil && content.err != nil {
		return fmt.Errorf("%w: attachment %q: %v", ErrMalformed, name, content.err)
	}
	return err
}

// tracked remembers a failure to read the part itself (broken base64, a
// message cut short), so that it is told from the callback's own
// failures, whatever the callback wraps it in.
type tracked struct {
	r   io.Reader
	err error
}

func (t *tracked) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if err != nil && !errors.Is(err, io.EOF) {
		t.err = err
	}
	return n, err
}

func (w *walker) multipart(body io.Reader, boundary string, depth int) error {
	if boundary == "" {
		return fmt.Errorf("%w: multipart without a boundary", ErrMalformed)
	}
	parts := multipart.NewReader(body, boundary)
	for {
		// NextRawPart leaves the transfer encoding to decoded, for every
		// part alike.
		p, err := parts.NextRawPart()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%w: %v", ErrMalformed, err)
		}
		if err := w.part(p.Header, p, depth+1); err != nil {
			return err
		}
	}
}

// fileName is the part's file name: Content-Disposition's filename (RFC
// 2231 continuations and charsets are decoded by ParseMediaType), else
// Content-Type's name, with RFC 2047 words decoded as many mailers
// still send them, reduced to a name worth keeping.
func fileName(h textproto.MIMEHeader, typeParams map[string]string) string {
	var name string
	if _, params, err := mime.ParseMediaType(h.Get("Content-Disposition")); err == nil {
		name = params["filename"]
	}
	if name == "" {
		name = typeParams["name"]
	}
	if decodedName, err := words.DecodeHeader(name); err == nil {
		name = decodedName
	}
	return intake.CleanName(strings.TrimSpace(name))
}

// decoded undoes the part's Content-Transfer-Encoding.
func decoded(h textproto.MIMEHeader, body io.Reader) io.Reader {
	switch strings.ToLower(strings.TrimSpace(h.Get("Content-Transfer-Encoding"))) {
	case "base64":
		// The decoder skips the line breaks of the encoded text.
		return base64.NewDecoder(base64.StdEncoding, body)
	case "quoted-printable":
		return quotedprintable.NewReader(body)
	}
	return body
}
