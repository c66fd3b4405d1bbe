import { Binary } from 'mongodb';
import { decodeConnection, encodeConnection, type StoredConnection } from './connection-document';

const ID = '0190f3c2-7a1b-7c3d-8e4f-5a6b7c8d9e0f';
const at = new Date('2026-03-01T10:00:00Z');
const connection: StoredConnection = {
  id: ID, productName: 'p', configName: 'ledger', type: 'POSTGRESQL', host: 'db', port: 5432, databaseName: 'app', userName: 'u',
  passwordEncrypted: 'enc', keyVersion: '1', createdAt: at, updatedAt: at,
};

describe('the connection document', () => {
  it('is written with the stored field names, live, without the optional parts it does not have', () => {
    expect(encodeConnection(connection)).toEqual({
      _id: new Binary(Buffer.from(ID.replace(/-/g, ''), 'hex'), 0), product_name: 'p', config_name: 'ledger', type: 'POSTGRESQL', host: 'db', port: 5432,
      database_name: 'app', username: 'u', password_encrypted: 'enc', encryption_key_version: '1', created_at: at, updated_at: at, deleted_at: null,
    });
  });

  it('round-trips schema, TLS material and metadata', () => {
    const full: StoredConnection = { ...connection, schema: 'public', ssl: { mode: 'verify-full', caEncrypted: 'c', keyEncrypted: 'k' }, metadata: { team: 'a' } };
    expect(encodeConnection(full)).toMatchObject({ schema: 'public', ssl: { mode: 'verify-full', ca_encrypted: 'c', key_encrypted: 'k' }, metadata: { team: 'a' } });
    expect(decodeConnection(encodeConnection(full))).toEqual(full);
  });

  it('reads the plaintext PEM of records from the original service as legacy material', () => {
    const doc = { ...encodeConnection(connection), ssl: { mode: 'require', ca: 'CA', cert: 'CERT', key: 'KEY' } };
    expect(decodeConnection(doc).ssl).toEqual({ mode: 'require', legacyCa: 'CA', legacyCert: 'CERT', legacyKey: 'KEY' });
  });
});
