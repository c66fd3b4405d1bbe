import { randomUUID } from 'node:crypto';
import { createConnection as createMysqlConnection } from 'mysql2/promise';
import { Client } from 'pg';

/** A throw-away schema in the loopback PostgreSQL (`test` database, trust auth) with two tables. */
export async function createPostgresSchema(): Promise<{ schema: string; drop(): Promise<void> }> {
  const schema = `it_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const client = new Client({ host: '127.0.0.1', port: 5432, user: 'postgres', database: 'test' });
  await client.connect();
  try {
    await client.query(`CREATE SCHEMA ${schema}`);
    await client.query(`CREATE TABLE ${schema}.accounts (id int PRIMARY KEY, email text, created_at timestamptz)`);
    await client.query(`CREATE TABLE ${schema}.orders (id int PRIMARY KEY, total numeric)`);
  } finally {
    await client.end();
  }
  return {
    schema,
    drop: async () => {
      const c = new Client({ host: '127.0.0.1', port: 5432, user: 'postgres', database: 'test' });
      await c.connect();
      try {
        await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      } finally {
        await c.end();
      }
    },
  };
}

/**
 * A throw-away database in the loopback MariaDB with one table, and a user of its own with a
 * password (so a test proves the stored password is decrypted and used).
 */
export async function createMariaDatabase(): Promise<{ database: string; user: string; password: string; drop(): Promise<void> }> {
  const database = `it_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const user = database;
  const password = `pw-${randomUUID()}`;
  const conn = await createMysqlConnection({ host: '127.0.0.1', port: 3306, user: 'root' });
  try {
    await conn.query(`CREATE DATABASE ${database}`);
    await conn.query(`CREATE TABLE ${database}.customers (id INT PRIMARY KEY, name VARCHAR(50))`);
    await conn.query(`CREATE USER '${user}'@'%' IDENTIFIED BY '${password}'`);
    await conn.query(`CREATE USER '${user}'@'localhost' IDENTIFIED BY '${password}'`);
    await conn.query(`GRANT ALL ON ${database}.* TO '${user}'@'%'`);
    await conn.query(`GRANT ALL ON ${database}.* TO '${user}'@'localhost'`);
  } finally {
    await conn.end();
  }
  return {
    database,
    user,
    password,
    drop: async () => {
      const c = await createMysqlConnection({ host: '127.0.0.1', port: 3306, user: 'root' });
      try {
        await c.query(`DROP DATABASE IF EXISTS ${database}`);
        await c.query(`DROP USER IF EXISTS '${user}'@'%'`);
        await c.query(`DROP USER IF EXISTS '${user}'@'localhost'`);
      } finally {
        await c.end();
      }
    },
  };
}
