// Package storage keeps files in an S3-compatible object store. Objects are
// streamed in both directions; nothing here buffers a whole file in memory.
package storage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/feature/s3/transfermanager"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"

	"ppwr/internal/bound"
)

// Options locate the bucket.
type Options struct {
	Endpoint        string // empty for AWS S3
	Region          string
	Bucket          string
	AccessKeyID     string
	SecretAccessKey string
	// Timeout bounds each wait on the store (config S3_TIMEOUT): a call,
	// or a stretch of a transfer in which the store moves no byte. A store
	// that does not answer within it fails the call with a
	// *bound.UnavailableError. 0 waits as long as the context.
	Timeout time.Duration
}

// Store is one bucket.
type Store struct {
	client   *s3.Client
	transfer *transfermanager.Client
	bucket   string
	timeout  time.Duration
}

// Object is a downloaded object; the caller closes Body.
type Object struct {
	Body        io.ReadCloser
	Size        int64
	ContentType string
}

// ErrNotFound is returned for a missing key.
var ErrNotFound = errors.New("storage: object not found")

// QuarantinePrefix holds the objects Quarantine moved: files found unsafe
// (malware), kept for an operator to inspect through the bucket itself.
// Get refuses every key under it, so no path of the service can serve
// them, whatever record names them.
const QuarantinePrefix = "quarantine/"

// ErrQuarantined is what Get answers for a key under QuarantinePrefix.
var ErrQuarantined = errors.New("storage: object is quarantined")

// New builds a Store. Path-style addressing is used for custom endpoints
// because most S3-compatible servers (versitygw, MinIO) expect it.
func New(o Options) *Store {
	cfg := aws.Config{
		Region:      o.Region,
		Credentials: credentials.NewStaticCredentialsProvider(o.AccessKeyID, o.SecretAccessKey, ""),
	}
	client := s3.NewFromConfig(cfg, func(so *s3.Options) {
		if o.Endpoint != "" {
			so.BaseEndpoint = aws.String(o.Endpoint)
			so.UsePathStyle = true
		}
	})
	return &Store{client: client, transfer: transfermanager.New(client), bucket: o.Bucket, timeout: o.Timeout}
}

// EnsureBucket creates the bucket when it does not exist (local stack and
// tests; production buckets are provisioned outside the service).
func (s *Store) EnsureBucket(ctx context.Context) error {
	if err := s.Ping(ctx); err == nil {
		return nil
	}
	err := s.call(ctx, func(ctx context.Context) error {
		_, err := s.client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(s.bucket)})
		return err
	})
	var owned *types.BucketAlreadyOwnedByYou
	if err != nil && !errors.As(err, &owned) {
		return fmt.Errorf("storage: create bucket %s: %w", s.bucket, err)
	}
	return nil
}

// Ping checks that the bucket is reachable with the configured credentials.
func (s *Store) Ping(ctx context.Context) error {
	return s.call(ctx, func(ctx context.Context) error {
		_, err := s.client.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String(s.bucket)})
		return err
	})
}

// call runs one request to the store within the bound.
func (s *Store) call(ctx context.Context, fn func(context.Context) error) error {
	return bound.Call(ctx, bound.S3, s.timeout, fn)
}

// singlePutMax is the largest body of known size that Put sends in one
// PutObject; larger ones go in parts, so that a failure repeats a part
// rather than the whole body.
const singlePutMax = 1 << 30

// Put streams r to key. A body that can seek (a file, a bytes.Reader) and
// holds at most singlePutMax goes up in one PutObject, read from where it
// is: the store writes it as it comes, where a multipart upload is written
// part by part and then joined (for versitygw, 200 MB took 1.7 to 2.1 s
// and 1.2 to 1.5 s of its CPU in parts, 0.8 to 0.9 s and 0.75 s in one),
// and the transfer manager would hold its parts in memory, 8 MiB each, up
// to six at a time. Other bodies go through the transfer manager, which
// switches to a multipart upload for large or unknown-length bodies.
//
// The bound counts the time the upload waits on the store, not the time it
// waits for r: a slow client is not cut off, a store that stops is.
func (s *Store) Put(ctx context.Context, key string, r io.Reader, contentType string) error {
	ctx, w := bound.Watch(ctx, bound.S3, s.timeout)
	defer w.Stop()
	var err error
	if size, ok := remaining(r); ok && size <= singlePutMax {
		_, err = s.client.PutObject(ctx, &s3.PutObjectInput{
			Bucket: aws.String(s.bucket), Key: aws.String(key), Body: &watchedSeeker{watchedSource{r: r, w: w}, r.(io.Seeker)},
			ContentLength: aws.Int64(size), ContentType: aws.String(contentType),
		})
	} else {
		_, err = s.transfer.UploadObject(ctx, &transfermanager.UploadObjectInput{
			Bucket: aws.String(s.bucket), Key: aws.String(key), Body: &watchedSource{r: r, w: w}, ContentType: aws.String(contentType),
		})
	}
	if err = w.Err(err); err != nil {
		return fmt.Errorf("storage: put %s: %w", key, err)
	}
	return nil
}

// remaining is how many bytes r holds from where it is, when it can seek.
func remaining(r io.Reader) (int64, bool) {
	seeker, ok := r.(io.Seeker)
	if !ok {
		return 0, false
	}
	at, err := seeker.Seek(0, io.SeekCurrent)
	if err != nil {
		return 0, false
	}
	end, err := seeker.Seek(0, io.SeekEnd)
	if err != nil {
		return 0, false
	}
	if _, err := seeker.Seek(at, io.SeekStart); err != nil {
		return 0, false
	}
	return end - at, true
}

// Get opens key for streaming; a quarantined key is never opened. The
// bound counts the wait for the answer and each read of the body, not the
// time the caller takes between reads.
func (s *Store) Get(ctx context.Context, key string) (*Object, error) {
	if Quarantined(key) {
		return nil, ErrQuarantined
	}
	ctx, w := bound.Watch(ctx, bound.S3, s.timeout)
	out, err := s.client.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(key)})
	w.Pause()
	if err != nil {
		w.Stop()
		if isNotFound(err) {
			return nil, ErrNotFound
		}
		return nil, fmt.Errorf("storage: get %s: %w", key, w.Err(err))
	}
	return &Object{Body: &watchedBody{body: out.Body, w: w}, Size: aws.ToInt64(out.ContentLength), ContentType: aws.ToString(out.ContentType)}, nil
}

// watchedSource is an upload's source: while the store reads it, the
// store is not waited on.
type watchedSource struct {
	r io.Reader
	w *bound.Watchdog
}

func (s *watchedSource) Read(p []byte) (int, error) {
	s.w.Pause()
	defer s.w.Wait()
	return s.r.Read(p)
}

// watchedSeeker is a watchedSource that can seek, as the SDK needs to
// sign a body sent in one request and to send it again on a retry.
type watchedSeeker struct {
	watchedSource
	seeker io.Seeker
}

func (s *watchedSeeker) Seek(offset int64, whence int) (int64, error) {
	return s.seeker.Seek(offset, whence)
}

// watchedBody is a download's body: each read waits on the store.
type watchedBody struct {
	body io.ReadCloser
	w    *bound.Watchdog
}

func (b *watchedBody) Read(p []byte) (int, error) {
	b.w.Wait()
	defer b.w.Pause()
	n, err := b.body.Read(p)
	if err != nil && err != io.EOF {
		err = b.w.Err(err)
	}
	return n, err
}

func (b *watchedBody) Close() error {
	defer b.w.Stop()
	return b.body.Close()
}

// Delete removes key; deleting a missing key is not an error.
func (s *Store) Delete(ctx context.Context, key string) error {
	err := s.call(ctx, func(ctx context.Context) error {
		_, err := s.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(key)})
		return err
	})
	if err != nil && !isNotFound(err) {
		return fmt.Errorf("storage: delete %s: %w", key, err)
	}
	return nil
}

// Exists reports whether key holds an object, without reading it.
func (s *Store) Exists(ctx context.Context, key string) (bool, error) {
	err := s.call(ctx, func(ctx context.Context) error {
		_, err := s.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(key)})
		return err
	})
	switch {
	case err == nil:
		return true, nil
	case isNotFound(err):
		return false, nil
	}
	return false, fmt.Errorf("storage: head %s: %w", key, err)
}

// Quarantined reports whether key is under QuarantinePrefix.
func Quarantined(key string) bool { return strings.HasPrefix(key, QuarantinePrefix) }

// Quarantine moves key under QuarantinePrefix, by a copy inside the store
// (one request up to S3's 5 GB, far above any upload's limit) and the
// delete of the original, and answers the new key. A retry converges: the
// copy is repeated while the original exists, and once it is gone the move
// is done if the quarantined copy exists. A quarantined key stays as it is.
func (s *Store) Quarantine(ctx context.Context, key string) (string, error) {
	if Quarantined(key) {
		return key, nil
	}
	dest := QuarantinePrefix + key
	err := s.call(ctx, func(ctx context.Context) error {
		_, err := s.client.CopyObject(ctx, &s3.CopyObjectInput{
			Bucket: aws.String(s.bucket), Key: aws.String(dest),
			CopySource: aws.String(s.bucket + "/" + (&url.URL{Path: key}).EscapedPath()),
		})
		return err
	})
	if err == nil {
		if err := s.Delete(ctx, key); err != nil {
			return "", err
		}
		return dest, nil
	}
	if !isNotFound(err) {
		return "", fmt.Errorf("storage: quarantine %s: %w", key, err)
	}
	switch moved, err := s.Exists(ctx, dest); {
	case err != nil:
		return "", err
	case !moved:
		return "", fmt.Errorf("storage: quarantine %s: %w", key, ErrNotFound)
	}
	return dest, nil
}

func isNotFound(err error) bool {
	var nsk *types.NoSuchKey
	if errors.As(err, &nsk) {
		return true
	}
	var apiErr smithy.APIError
	return errors.As(err, &apiErr) && (apiErr.ErrorCode() == "NotFound" || apiErr.ErrorCode() == "NoSuchKey")
}
