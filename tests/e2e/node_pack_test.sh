#!/usr/bin/env bash
# The Node.js client as another project installs it: `npm pack` makes a
# tarball that carries its .proto files (pack_protos.sh), an empty project
# installs it (its dependencies from npm's cache when the repository's npm
# ci filled it, else the registry), and a program there, with no IKD_*
# variable and no path into the repository, solves against a live ikd.
# Usage: node_pack_test.sh IKD IKCTL
source "$(dirname "$0")/lib.sh"
IKD=$1

"$REPO/client/node/install.sh"
(cd "$REPO/client/node" && npm pack --silent --pack-destination "$WORK" \
  >"$WORK/pack.log" 2>&1) || fail "npm pack: $(cat "$WORK/pack.log")"
tarball=$(ls "$WORK"/ikd-client-*.tgz) || fail "no tarball: $(cat "$WORK/pack.log")"
tar -tzf "$tarball" >"$WORK/contents"
grep -q "package/protos/ik/v1/ik.proto" "$WORK/contents" \
  || fail "the tarball has no protos: $(cat "$WORK/contents")"
[[ -e "$REPO/client/node/protos" ]] && fail "npm pack left protos/ in the tree"

mkdir -p "$WORK/app"
cd "$WORK/app"
echo '{"name": "app", "private": true, "type": "module"}' >package.json
npm install --prefer-offline --no-audit --no-fund "$tarball" \
  >"$WORK/install.log" 2>&1 || fail "npm install: $(cat "$WORK/install.log")"
cat >app.js <<'JS'
import { IkClient } from '@ikd/client';
const client = new IkClient(process.argv[2]);
console.log(await client.health());
const answer = await client.solveChain({
  rig: 'humanoid',
  goals: [{ chain: 'left_arm', target: { x: 0.45, y: 1.2, z: 0.15 } }],
});
console.log('reached', answer.results[0].reached);
client.close();
JS

start_server "$IKD" --listen=127.0.0.1:0 --rig_dir="$REPO/examples/rigs" \
  --terrain_dir="$REPO/examples/terrains"
out=$(env -u IKD_PROTO_DIR -u IKD_GOOGLEAPIS_DIR -u IKD_GRPC_PROTO_DIR \
  node app.js "$SERVER" 2>&1) || fail "the packed client: $out"
[[ "$out" == *"SERVING"*"reached true"* ]] || fail "packed client output: $out"
stop_server
echo "node pack: ok"
