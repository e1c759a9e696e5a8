import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { ServiceModule } from '../modules.js';
import { action, child } from '../resources/declaration.js';
import { field } from '../resources/field.js';
import { resource } from '../resources/resource.js';
import { writeDeclaredRoutes } from './declared-routes.js';
import { projectLayout } from './layout.js';

const ticket = resource({
  name: 'ticket',
  fields: { title: field.text({ max: 20 }).required() },
  children: { notes: child({ item: 'note', fields: { text: field.text({ max: 50 }).required() } }) },
  actions: { close: action({ run: () => {} }), markPaid: action({ run: () => {} }) },
  softDelete: true,
});
const modules: ServiceModule[] = [{ name: 'ticket', resources: [ticket] }];

describe('migration make: the route files of paths a declaration adds', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'restlayer-declared-routes-'));
    writeFileSync(join(root, 'package.json'), '{}');
    mkdirSync(join(root, 'services', 'ticket'), { recursive: true });
    writeFileSync(join(root, 'services', 'index.ts'), 'export const modules = [];\n');
    writeFileSync(join(root, 'services', 'ticket', 'ticket.ts'), 'export const ticket = resource({ name: \'ticket\' });\n');
    // The child collection's list is served already, by a file of another name: it is left alone.
    mkdirSync(join(root, 'routes', 'ticket', '[_ticketId]', 'note'), { recursive: true });
    writeFileSync(join(root, 'routes', 'ticket', '[_ticketId]', 'note', 'index.js'), '');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('writes one line per path no file serves, importing the declaration; --check writes nothing', () => {
    const layout = projectLayout(root);
    const expected = ['routes/ticket/[_ticketId]/note/[_ticketNoteId].ts', 'routes/ticket/[_ticketId]/close.ts', 'routes/ticket/[_ticketId]/mark-paid.ts', 'routes/ticket/[_ticketId]/restore.ts'];
    expect(writeDeclaredRoutes(modules, root, layout, true)).to.deep.equal({ written: expected, byHand: [] });
    expect(existsSync(join(root, expected[1]))).to.equal(false);
    expect(writeDeclaredRoutes(modules, root, layout).written).to.deep.equal(expected);
    // The path built, not written out: lib/ holds no import of a project's services (test/scaffold checks the text).
    const declaration = `${'../'.repeat(3)}services/ticket/ticket.js`;
    expect(readFileSync(join(root, expected[1]), 'utf8')).to.include(`import { ticket } from '${declaration}';\n\nexport const { POST } = ticket.routes.close;\n`);
    expect(readFileSync(join(root, expected[0]), 'utf8')).to.include('export const { GET, PUT, PATCH, DELETE } = ticket.routes.notes.item;');
    // A multi-word action's file is its path (mark-paid.ts), exporting its key's routes.
    expect(readFileSync(join(root, expected[2]), 'utf8')).to.include(`import { ticket } from '${declaration}';\n\nexport const { POST } = ticket.routes.markPaid;\n`);
    expect(readFileSync(join(root, expected[3]), 'utf8')).to.include('ticket.routes.restore!;');
    expect(writeDeclaredRoutes(modules, root, layout).written).to.deep.equal([]);
  });

  it('names the file to write by hand when the declaration is not where the scaffold puts it', () => {
    rmSync(join(root, 'services', 'ticket', 'ticket.ts'));
    const { written, byHand } = writeDeclaredRoutes(modules, root, projectLayout(root));
    expect(written).to.deep.equal([]);
    expect(byHand[1]).to.equal('routes/ticket/[_ticketId]/close.ts: export const { POST } = ticket.routes.close; (the declaration of ticket is not services/ticket/ticket.ts)');
  });
});
