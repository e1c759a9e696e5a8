import { route } from '../../app.js';
import { NoteInput } from '../../note/note.js';

export const GET = route({
  summary: 'List the notes.',
  permission: 'note.read',
  operation: 'INoteService.list',
  handle: ({ services }) => services.note.list(),
});

export const POST = route({
  summary: 'Write a note.',
  permission: 'note.create',
  operation: 'INoteService.create',
  body: NoteInput,
  handle: ({ body, services, principal }) => services.note.create(body, principal!.userName),
});
