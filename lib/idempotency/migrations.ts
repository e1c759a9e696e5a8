import type { Kysely, Migration } from 'kysely';

/**
 * The table of Idempotency-Key: one row per (caller, path, key), named by a hash of the three so keys of different
 * callers or paths can never meet and the client's key text is not kept. `status` is null while the first request
 * runs. Times are epoch milliseconds (bigint on both stores: no date conversion, compared as numbers).
 */
export function idempotencyMigrations(): Record<string, Migration> {
  return {
    '0001-idempotency-key': {
      async up(db: Kysely<unknown>) {
        await db.schema.createTable('idempotency_key')
          .addColumn('key_hash', 'varchar(64)', (c) => c.primaryKey())
          .addColumn('fingerprint', 'varchar(64)', (c) => c.notNull())
          .addColumn('status', 'integer')
          .addColumn('location', 'text')
          .addColumn('body', 'text')
          .addColumn('created_ms', 'bigint', (c) => c.notNull())
          .addColumn('expires_ms', 'bigint', (c) => c.notNull())
          .execute();
        // The bounded cleanup finds expired rows by this index, not by reading the table.
        await db.schema.createIndex('ix_idempotency_key_expires').on('idempotency_key').column('expires_ms').execute();
      },
      async down(db: Kysely<unknown>) {
        await db.schema.dropTable('idempotency_key').execute();
      },
    },
    // Which request holds a key (its process and a claim nonce): a process keeps and completes its own claims after a
    // store fault, and a repeat whose holder's process has ended need not wait for it. Rows of older versions keep null.
    '0002-idempotency-key-claimed-by': {
      async up(db: Kysely<unknown>) {
        await db.schema.alterTable('idempotency_key').addColumn('claimed_by', 'varchar(160)').execute();
      },
      async down(db: Kysely<unknown>) {
        await db.schema.alterTable('idempotency_key').dropColumn('claimed_by').execute();
      },
    },
    // The language of the kept answer's messages, which a repeat says (Content-Language, contract part 16) as the first
    // answer did. Rows of older versions keep null: their repeats (within RestAPI:IdempotencyKeepSeconds) say none.
    '0003-idempotency-key-language': {
      async up(db: Kysely<unknown>) {
        await db.schema.alterTable('idempotency_key').addColumn('language', 'varchar(35)').execute();
      },
      async down(db: Kysely<unknown>) {
        await db.schema.alterTable('idempotency_key').dropColumn('language').execute();
      },
    },
  };
}
