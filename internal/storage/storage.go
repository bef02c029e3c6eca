// Package storage keeps files in an S3-compatible object store. Objects are
// streamed in both directions; nothing here buffers a whole file in memory.
package storage

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/feature/s3/transfermanager"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
)

// Options locate the bucket.
type Options struct {
	Endpoint        string // empty for AWS S3
	Region          string
	Bucket          string
	AccessKeyID     string
	SecretAccessKey string
}

// Store is one bucket.
type Store struct {
	client   *s3.Client
	transfer *transfermanager.Client
	bucket   string
}

// Object is a downloaded object; the caller closes Body.
type Object struct {
	Body        io.ReadCloser
	Size        int64
	ContentType string
}

// ErrNotFound is returned for a missing key.
var ErrNotFound = errors.New("storage: object not found")

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
	return &Store{client: client, transfer: transfermanager.New(client), bucket: o.Bucket}
}

// EnsureBucket creates the bucket when it does not exist (local stack and
// tests; production buckets are provisioned outside the service).
func (s *Store) EnsureBucket(ctx context.Context) error {
	if err := s.Ping(ctx); err == nil {
		return nil
	}
	_, err := s.client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(s.bucket)})
	var owned *types.BucketAlreadyOwnedByYou
	if err != nil && !errors.As(err, &owned) {
		return fmt.Errorf("storage: create bucket %s: %w", s.bucket, err)
	}
	return nil
}

// Ping checks that the bucket is reachable with the configured credentials.
func (s *Store) Ping(ctx context.Context) error {
	_, err := s.client.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String(s.bucket)})
	return err
}

// Put streams r to key. The transfer manager switches to a multipart upload for
// large or unknown-length bodies, holding only one part in memory at a time.
func (s *Store) Put(ctx context.Context, key string, r io.Reader, contentType string) error {
	_, err := s.transfer.UploadObject(ctx, &transfermanager.UploadObjectInput{
		Bucket: aws.String(s.bucket), Key: aws.String(key), Body: r, ContentType: aws.String(contentType),
	})
	if err != nil {
		return fmt.Errorf("storage: put %s: %w", key, err)
	}
	return nil
}

// Get opens key for streaming.
func (s *Store) Get(ctx context.Context, key string) (*Object, error) {
	out, err := s.client.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(key)})
	if err != nil {
		if isNotFound(err) {
			return nil, ErrNotFound
		}
		return nil, fmt.Errorf("storage: get %s: %w", key, err)
	}
	return &Object{Body: out.Body, Size: aws.ToInt64(out.ContentLength), ContentType: aws.ToString(out.ContentType)}, nil
}

// Delete removes key; deleting a missing key is not an error.
func (s *Store) Delete(ctx context.Context, key string) error {
	_, err := s.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(key)})
	if err != nil && !isNotFound(err) {
		return fmt.Errorf("storage: delete %s: %w", key, err)
	}
	return nil
}

func isNotFound(err error) bool {
	var nsk *types.NoSuchKey
	if errors.As(err, &nsk) {
		return true
	}
	var apiErr smithy.APIError
	return errors.As(err, &apiErr) && (apiErr.ErrorCode() == "NotFound" || apiErr.ErrorCode() == "NoSuchKey")
}
