// An application's own test, with restlayer/testing: its server on an ephemeral port over an SQLite file of its own.
import assert from 'node:assert/strict';
import { startTestServer } from 'restlayer/testing';
import { type AppServices, application } from './app.js';
import type { Note } from './note/note.js';

const server = await startTestServer<AppServices>({ application });
try {
  const created = await server.call<Note>('/note', { method: 'POST', body: { text: 'from a test' } });
  assert.equal(created.status, 200, created.text);
  assert.deepEqual(created.body.result, { noteId: 1, text: 'from a test', author: 'tester' });
  const listed = await server.services.note.list();
  assert.deepEqual(listed.result?.map((n) => n.text), ['from a test']);
  const anonymous = await server.call('/note', { token: null });
  assert.equal(anonymous.status, 401);
  process.stdout.write(`restlayer/testing: ok (${server.url})\n`);
} finally {
  await server.stop();
}
