import { route } from '../../app.js';
import { NoteInput } from '../../note/note.js';

export const GET = route({
  summary: 'List the notes.',
  operation: 'INoteService.list',
  handle: ({ services }) => services.note.list(),
});

export const POST = route({
  summary: 'Write a note.',
  operation: 'INoteService.create',
  body: NoteInput,
  handle: ({ body, services, principal }) => services.note.create(body, principal!.userName),
});
