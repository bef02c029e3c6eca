#!/bin/sh
# One-shot for compose: creates the ppwr bucket on the S3 store. ppwr serve
# and worker expect it to exist (in production buckets are provisioned outside
# the service); safe to run on every `docker compose up`.
set -eu

url="${S3_ENDPOINT%/}/${S3_BUCKET}"
# curl signs requests itself (SigV4); the store insists on the payload hash
# header, which for these body-less requests is the hash of the empty string.
s3() {
	curl -s --aws-sigv4 "aws:amz:${S3_REGION}:s3" --user "${AWS_ACCESS_KEY_ID}:${AWS_SECRET_ACCESS_KEY}" \
		-H "x-amz-content-sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" "$@"
}

tries=0
while :; do
	code=$(s3 -o /dev/null -w '%{http_code}' -I "$url" || true)
	case "$code" in
	200)
		echo "bucket $S3_BUCKET exists"
		exit 0
		;;
	404) break ;;
	esac
	tries=$((tries + 1))
	if [ "$tries" -ge 60 ]; then
		echo "S3 store at $S3_ENDPOINT did not answer HEAD $S3_BUCKET after 2 minutes (last status: ${code:-none})" >&2
		exit 1
	fi
	sleep 2
done

code=$(s3 -o /tmp/create-bucket.xml -w '%{http_code}' -X PUT "$url" || true)
case "$code" in
200 | 409)
	echo "bucket $S3_BUCKET created"
	;;
*)
	echo "creating bucket $S3_BUCKET failed with status ${code:-none}:" >&2
	cat /tmp/create-bucket.xml >&2 || true
	exit 1
	;;
esac
