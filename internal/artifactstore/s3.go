package artifactstore

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"path"
	"sort"
	"strings"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// Environment variables of an S3 store: the endpoint, and the
// credentials under their usual AWS names. Credentials come from the
// environment only, never from a flag or a file of the run.
const (
	// EnvS3Endpoint is the endpoint: https://host[:port] or
	// http://host[:port] (a loopback or private server); host[:port]
	// alone means https. Unset: s3.amazonaws.com.
	EnvS3Endpoint = "WORLDPROBE_S3_ENDPOINT"
	EnvAccessKey  = "AWS_ACCESS_KEY_ID"
	EnvSecretKey  = "AWS_SECRET_ACCESS_KEY"
	EnvToken      = "AWS_SESSION_TOKEN"
	EnvRegion     = "AWS_REGION"
)

// S3 is a store in an S3-compatible bucket, below a prefix.
type S3 struct {
	client *minio.Client
	bucket string
	prefix string // "" or ending in "/"
	where  string // s3://bucket/prefix, for messages
}

// ParseS3URL splits "s3://BUCKET[/PREFIX]" into the bucket and the prefix
// (without slashes at its ends).
func ParseS3URL(where string) (bucket, prefix string, err error) {
	u, err := url.Parse(where)
	if err != nil || u.Scheme != "s3" || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return "", "", fmt.Errorf("%q: want s3://BUCKET/PREFIX", where)
	}
	prefix = strings.Trim(u.Path, "/")
	if prefix != "" && !ValidName(prefix) {
		return "", "", fmt.Errorf("%q: the prefix must be a slash-separated path", where)
	}
	return u.Host, prefix, nil
}

// S3FromEnv opens the bucket store at where ("s3://BUCKET/PREFIX") with
// the endpoint and credentials of getenv ([EnvS3Endpoint], [EnvAccessKey],
// …). The bucket must exist.
func S3FromEnv(ctx context.Context, where string, getenv func(string) string) (*S3, error) {
	bucket, prefix, err := ParseS3URL(where)
	if err != nil {
		return nil, err
	}
	endpoint, secure := "s3.amazonaws.com", true
	if e := getenv(EnvS3Endpoint); e != "" {
		switch {
		case strings.HasPrefix(e, "http://"):
			endpoint, secure = strings.TrimPrefix(e, "http://"), false
		case strings.HasPrefix(e, "https://"):
			endpoint = strings.TrimPrefix(e, "https://")
		default:
			endpoint = e
		}
		endpoint = strings.TrimSuffix(endpoint, "/")
	}
	var creds *credentials.Credentials
	if id := getenv(EnvAccessKey); id != "" {
		creds = credentials.NewStaticV4(id, getenv(EnvSecretKey), getenv(EnvToken))
	} else {
		creds = credentials.NewStatic("", "", "", credentials.SignatureAnonymous)
	}
	client, err := minio.New(endpoint, &minio.Options{Creds: creds, Secure: secure, Region: getenv(EnvRegion)})
	if err != nil {
		return nil, fmt.Errorf("artifacts in %s: %w", where, err)
	}
	s := &S3{client: client, bucket: bucket, where: "s3://" + bucket + "/" + prefix}
	if prefix != "" {
		s.prefix = prefix + "/"
	}
	ok, err := client.BucketExists(ctx, bucket)
	if err != nil {
		return nil, fmt.Errorf("artifacts in %s (endpoint %s): %w", s.where, endpoint, err)
	}
	if !ok {
		return nil, fmt.Errorf("artifacts in %s (endpoint %s): no such bucket", s.where, endpoint)
	}
	return s, nil
}

// String implements Store.
func (s *S3) String() string { return s.where }

// Put implements Store: one PUT (a multipart upload for large files), so
// a reader sees the whole object or none.
func (s *S3) Put(ctx context.Context, name string, r io.Reader, size int64) error {
	if err := checkName(name); err != nil {
		return err
	}
	info, err := s.client.PutObject(ctx, s.bucket, s.prefix+name, r, size, minio.PutObjectOptions{ContentType: contentType(name)})
	if err != nil {
		return fmt.Errorf("storing %s in %s: %w", name, s, err)
	}
	if info.Size != size {
		return fmt.Errorf("storing %s in %s: %d bytes, announced %d: %w", name, s, info.Size, size, errShortWrite)
	}
	return nil
}

// Open implements Store.
func (s *S3) Open(ctx context.Context, name string) (File, error) {
	if err := checkName(name); err != nil {
		return nil, err
	}
	obj, err := s.client.GetObject(ctx, s.bucket, s.prefix+name, minio.GetObjectOptions{})
	if err != nil {
		return nil, s.mapErr(name, err)
	}
	info, err := obj.Stat()
	if err != nil {
		obj.Close()
		return nil, s.mapErr(name, err)
	}
	return &s3File{Object: obj, info: fileInfo{name: name, size: info.Size, modTime: info.LastModified}}, nil
}

func (s *S3) mapErr(name string, err error) error {
	switch minio.ToErrorResponse(err).Code {
	case minio.NoSuchKey, "NotFound":
		return notExist(s, name)
	}
	return fmt.Errorf("reading %s from %s: %w", name, s, err)
}

// List implements Store.
func (s *S3) List(ctx context.Context, prefix string) ([]string, error) {
	prefix = strings.Trim(prefix, "/")
	if prefix != "" {
		if err := checkName(prefix); err != nil {
			return nil, err
		}
		prefix += "/"
	}
	var names []string
	for o := range s.client.ListObjects(ctx, s.bucket, minio.ListObjectsOptions{Prefix: s.prefix + prefix, Recursive: true}) {
		if o.Err != nil {
			return nil, fmt.Errorf("listing %s: %w", s, o.Err)
		}
		names = append(names, strings.TrimPrefix(o.Key, s.prefix))
	}
	sort.Strings(names)
	return names, nil
}

// s3File is an object open for reading.
type s3File struct {
	*minio.Object
	info fileInfo
}

func (f *s3File) Stat() (fs.FileInfo, error) { return f.info, nil }

// contentType is the type a stored file is served with.
func contentType(name string) string {
	switch strings.ToLower(path.Ext(name)) {
	case ".json":
		return "application/json"
	case ".jsonl":
		return "application/x-ndjson"
	case ".png":
		return "image/png"
	case ".jpg", ".jpeg":
		return "image/jpeg"
	case ".webm":
		return "video/webm"
	case ".mp4":
		return "video/mp4"
	case ".html":
		return "text/html; charset=utf-8"
	case ".md", ".txt":
		return "text/plain; charset=utf-8"
	}
	return "application/octet-stream"
}
