#!/usr/bin/env node
// Decrypts a Fetcher extraction result (the object the Worker stored) with nothing but Node.
//
//   APP_ENC_KEY=... node docker/decrypt-result.cjs < result.b64 > result.json
//   APP_ENC_KEY=... node docker/decrypt-result.cjs --hmac <job resultHmac> < result.b64 > result.json
//
// The object is base64(nonce(12) || ciphertext || tag(16)), AES-256-GCM without associated data, under
// the storage key: HKDF-SHA256 of APP_ENC_KEY with an empty salt and the info
// "fetcher-storage-encryption-v1". With --hmac, the plaintext's HMAC-SHA256 under the external key
// (info "fetcher-external-hmac-v1") must match the job's resultHmac, or nothing is written.
// It holds the whole result in memory: fine for a local stack; the fetcher CLI streams instead.
'use strict';

const { createDecipheriv, createHmac, hkdfSync, timingSafeEqual } = require('node:crypto');

function fail(message) {
  process.stderr.write(`decrypt-result: ${message}\n`);
  process.exit(1);
}

function subKey(master, info) {
  return Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), info, 32));
}

const args = process.argv.slice(2);
const hmacIndex = args.indexOf('--hmac');
const expectedHmac = hmacIndex >= 0 ? args[hmacIndex + 1] : undefined;
if (hmacIndex >= 0 && !/^[0-9a-f]{64}$/i.test(expectedHmac || '')) fail('--hmac needs the 64-hex-digit resultHmac of the job');

const encoded = process.env.APP_ENC_KEY || '';
const master = Buffer.from(encoded, 'base64');
if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || master.length < 32) fail('APP_ENC_KEY must be the base64 key (32 bytes or more) the stack runs with');

const chunks = [];
process.stdin.on('data', (chunk) => chunks.push(chunk));
process.stdin.on('end', () => {
  const sealed = Buffer.from(Buffer.concat(chunks).toString('ascii').replace(/\s+/g, ''), 'base64');
  if (sealed.length < 28) fail('input is too short to be a result object');
  const decipher = createDecipheriv('aes-256-gcm', subKey(master, 'fetcher-storage-encryption-v1'), sealed.subarray(0, 12));
  decipher.setAuthTag(sealed.subarray(sealed.length - 16));
  let plaintext;
  try {
    plaintext = Buffer.concat([decipher.update(sealed.subarray(12, sealed.length - 16)), decipher.final()]);
  } catch {
    fail('authentication failed: wrong APP_ENC_KEY, or the object was changed');
  }
  if (expectedHmac !== undefined) {
    const actual = createHmac('sha256', subKey(master, 'fetcher-external-hmac-v1')).update(plaintext).digest();
    if (!timingSafeEqual(actual, Buffer.from(expectedHmac, 'hex'))) fail('HMAC mismatch: this is not the result the job recorded');
  }
  process.stdout.write(plaintext);
});
