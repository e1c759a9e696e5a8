// Logs in through restlayer/client and writes a note through the proxy: node dist/check-client.js URL USER PASSWORD TEXT
import { createClient } from 'restlayer/client';
import { NoteProxy } from './note/note-proxy.js';

const [url, userName, password, text] = process.argv.slice(2);
const client = createClient({ ClientName: 'notes-check', BaseAddress: url, BasePath: '', Authorization: true, RefreshTokenPath: 'auth/refresh' });
const login = await client.login(userName, password);
if (login.messages.length) throw new Error(login.messages.map((m) => m.message).join(' '));
const notes = new NoteProxy(client);
const created = await notes.create({ text });
const listed = await notes.list();
process.stdout.write(JSON.stringify({ created: created.result, listed: listed.result }) + '\n');
