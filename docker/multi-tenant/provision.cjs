#!/usr/bin/env node
/**
 * Provisions the tenants of a tenants file for the local multi-tenant stack (compose profile
 * `multi-tenant`), as a platform's provisioner would: for each tenant's `fetcher` config, its RabbitMQ
 * vhost with the work queue, dead-letter exchange and queue and event exchange (the objects of
 * docker/rabbitmq/definitions.json, imported into the vhost through the management API), access for
 * the tenant's broker user, and the indexes of its MongoDB database (neither service creates them in
 * multi-tenant mode). Safe to run again: every step is idempotent.
 *
 *   node docker/multi-tenant/provision.cjs <tenants.json>
 *
 * Environment: RABBITMQ_MANAGEMENT_URL (http://rabbitmq:15672), RABBITMQ_ADMIN_USER and
 * RABBITMQ_ADMIN_PASS (an administrator of the broker), DEFINITIONS_FILE (the topology to import).
 * Needs the repository's node_modules with @fetcher/contracts built (the image's build stage).
 */
'use strict';

const { readFileSync } = require('node:fs');
const { join } = require('node:path');

async function main() {
  const tenantsFile = process.argv[2];
  if (!tenantsFile) throw new Error('usage: provision.cjs <tenants.json>');
  const { tenants } = JSON.parse(readFileSync(tenantsFile, 'utf8'));
  const definitions = JSON.parse(readFileSync(process.env.DEFINITIONS_FILE ?? join(__dirname, '..', 'rabbitmq', 'definitions.json'), 'utf8'));
  const management = (process.env.RABBITMQ_MANAGEMENT_URL ?? 'http://rabbitmq:15672').replace(/\/+$/, '');
  const auth = `Basic ${Buffer.from(`${process.env.RABBITMQ_ADMIN_USER ?? 'fetcher'}:${process.env.RABBITMQ_ADMIN_PASS ?? ''}`).toString('base64')}`;
  const { MongoClient } = require('mongodb');
  const { ACTIVE_HASH_INDEX, CONNECTION_COLLECTION, CONNECTION_INDEXES, createIndexArgs, JOB_COLLECTION, JOB_INDEXES } = require('@fetcher/contracts');

  async function call(method, path, body) {
    const response = await fetch(`${management}/api${path}`, {
      method,
      headers: { authorization: auth, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (!response.ok) throw new Error(`${method} ${path}: HTTP ${response.status}`);
  }

  // The topology without its vhost fields: a vhost-scoped import puts every object in that vhost.
  const strip = (objects) => objects.map(({ vhost: _vhost, ...object }) => object);
  const topology = { exchanges: strip(definitions.exchanges), queues: strip(definitions.queues), bindings: strip(definitions.bindings) };

  for (const [tenantId, tenant] of Object.entries(tenants)) {
    const config = tenant.services?.fetcher;
    const rabbitmq = config?.messaging?.rabbitmq;
    const mongo = config?.databases?.fetcher?.mongodb;
    if (!rabbitmq?.vhost || !mongo?.uri || !mongo?.database) {
      console.log(`${tenantId}: no fetcher database or vhost in its config, skipped`);
      continue;
    }
    const vhost = encodeURIComponent(rabbitmq.vhost);
    await call('PUT', `/vhosts/${vhost}`, { description: `Fetcher tenant ${tenantId}` });
    await call('PUT', `/permissions/${vhost}/${encodeURIComponent(rabbitmq.username)}`, { configure: '.*', write: '.*', read: '.*' });
    await call('POST', `/definitions/${vhost}`, topology);

    const client = new MongoClient(mongo.uri, { serverSelectionTimeoutMS: 30_000 });
    try {
      const db = client.db(mongo.database);
      for (const index of CONNECTION_INDEXES) await db.collection(CONNECTION_COLLECTION).createIndex(...createIndexArgs(index));
      for (const index of [...JOB_INDEXES, ACTIVE_HASH_INDEX]) await db.collection(JOB_COLLECTION).createIndex(...createIndexArgs(index));
    } finally {
      await client.close();
    }
    console.log(`${tenantId}: vhost ${rabbitmq.vhost} and database ${mongo.database} are ready`);
  }
}

main().catch((error) => {
  console.error(`provisioning failed: ${error.message}`);
  process.exit(1);
});
