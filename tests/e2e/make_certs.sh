#!/usr/bin/env bash
# Makes a test CA and certificates it signs, with the openssl command line:
#   make_certs.sh DIR
# writes DIR/ca.crt, DIR/ca.key, DIR/server.{crt,key} (DNS:localhost,
# IP:127.0.0.1, valid for a day) and DIR/client.{crt,key} (a client
# certificate of the same CA). Test material only: keys are unencrypted.
set -euo pipefail
dir=$1
mkdir -p "$dir"
cd "$dir"
key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }
key ca.key
openssl req -x509 -new -key ca.key -subj "/CN=ikd test CA" -days 1 \
  -addext "basicConstraints=critical,CA:TRUE" \
  -addext "keyUsage=critical,keyCertSign,cRLSign" -out ca.crt
for who in server client; do
  key "$who.key"
  openssl req -new -key "$who.key" -subj "/CN=ikd-$who" -out "$who.csr"
  printf '%s\n' "basicConstraints=CA:FALSE" \
    "keyUsage=critical,digitalSignature,keyEncipherment" \
    "extendedKeyUsage=serverAuth,clientAuth" \
    "subjectAltName=DNS:localhost,IP:127.0.0.1" >"$who.ext"
  openssl x509 -req -in "$who.csr" -CA ca.crt -CAkey ca.key -CAcreateserial \
    -days 1 -extfile "$who.ext" -out "$who.crt" 2>/dev/null
  rm -f "$who.csr" "$who.ext"
done
rm -f ca.srl
