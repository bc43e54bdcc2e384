package blob

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// S3API is the part of the S3 client this package calls (so the IAM policy
// of a function that uses it is s3:PutObject, s3:GetObject, s3:ListBucket).
type S3API interface {
	PutObject(ctx context.Context, in *s3.PutObjectInput, opts ...func(*s3.Options)) (*s3.PutObjectOutput, error)
	GetObject(ctx context.Context, in *s3.GetObjectInput, opts ...func(*s3.Options)) (*s3.GetObjectOutput, error)
	ListObjectsV2(ctx context.Context, in *s3.ListObjectsV2Input, opts ...func(*s3.Options)) (*s3.ListObjectsV2Output, error)
}

// S3IAMActions are the IAM actions S3 needs.
var S3IAMActions = []string{"s3:PutObject", "s3:GetObject", "s3:ListBucket"}

// MaxGetBytes caps what Get reads into memory: reports are a few hundred KB.
const MaxGetBytes = 64 << 20

// S3 stores blobs as objects under an optional key prefix of one bucket.
type S3 struct {
	client S3API
	bucket string
	prefix string // "" or ends in '/'
}

// NewS3 stores under bucket, every key starting with prefix ("" for none,
// e.g. "reports/").
func NewS3(client S3API, bucket, prefix string) (*S3, error) {
	if bucket == "" {
		return nil, errors.New("s3 blob store: no bucket name given")
	}
	if prefix != "" {
		if err := CheckName(strings.TrimSuffix(prefix, "/")); err != nil {
			return nil, fmt.Errorf("s3 blob store: prefix: %w", err)
		}
		prefix = strings.TrimSuffix(prefix, "/") + "/"
	}
	return &S3{client: client, bucket: bucket, prefix: prefix}, nil
}

// Put uploads data as the object name (server-side encrypted by the bucket's
// default; the content type follows the extension).
func (s *S3) Put(ctx context.Context, name string, data []byte) error {
	if err := CheckName(name); err != nil {
		return err
	}
	_, err := s.client.PutObject(ctx, &s3.PutObjectInput{
		Bucket:        aws.String(s.bucket),
		Key:           aws.String(s.prefix + name),
		Body:          bytes.NewReader(data),
		ContentLength: aws.Int64(int64(len(data))),
		ContentType:   aws.String(contentType(name)),
	})
	if err != nil {
		return fmt.Errorf("put s3://%s/%s%s: %w", s.bucket, s.prefix, name, err)
	}
	return nil
}

// Get downloads the object name, or ErrNotFound.
func (s *S3) Get(ctx context.Context, name string) ([]byte, error) {
	if err := CheckName(name); err != nil {
		return nil, err
	}
	out, err := s.client.GetObject(ctx, &s3.GetObjectInput{
		Bucket: aws.String(s.bucket),
		Key:    aws.String(s.prefix + name),
	})
	if err != nil {
		var nsk *types.NoSuchKey
		if errors.As(err, &nsk) {
			return nil, fmt.Errorf("get s3://%s/%s%s: %w", s.bucket, s.prefix, name, ErrNotFound)
		}
		return nil, fmt.Errorf("get s3://%s/%s%s: %w", s.bucket, s.prefix, name, err)
	}
	defer out.Body.Close()
	b, err := io.ReadAll(io.LimitReader(out.Body, MaxGetBytes+1))
	if err != nil {
		return nil, fmt.Errorf("get s3://%s/%s%s: read: %w", s.bucket, s.prefix, name, err)
	}
	if len(b) > MaxGetBytes {
		return nil, fmt.Errorf("get s3://%s/%s%s: over %d bytes", s.bucket, s.prefix, name, MaxGetBytes)
	}
	return b, nil
}

// List returns the objects whose names start with prefix, ordered by name
// (S3 lists keys in byte order, which is name order here).
func (s *S3) List(ctx context.Context, prefix string) ([]Object, error) {
	if err := checkPrefix(prefix); err != nil {
		return nil, err
	}
	var out []Object
	p := s3.NewListObjectsV2Paginator(s.client, &s3.ListObjectsV2Input{
		Bucket: aws.String(s.bucket),
		Prefix: aws.String(s.prefix + prefix),
	})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("list s3://%s/%s%s: %w", s.bucket, s.prefix, prefix, err)
		}
		for _, o := range page.Contents {
			name := strings.TrimPrefix(aws.ToString(o.Key), s.prefix)
			if CheckName(name) != nil {
				continue // written by something else; not ours to hand out
			}
			obj := Object{Name: name, Size: aws.ToInt64(o.Size)}
			if o.LastModified != nil {
				obj.Modified = o.LastModified.UTC()
			}
			out = append(out, obj)
		}
	}
	return out, nil
}
