import { expect } from 'chai';
import { CursorError, decodeCursor, encodeCursor } from './list-cursor.js';

// list-cursor.ts: a cursor is refused once any character of it was changed.
describe('signed list cursors', () => {
  const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

  it('refuses a signature whose last character was changed in the bits base64url drops', () => {
    const cursor = encodeCursor('list', [42, 'name']);
    const signature = cursor.slice(cursor.lastIndexOf('.') + 1);
    const last = ALPHABET.indexOf(signature.at(-1)!);
    // 32 bytes end in a character whose two low bits hold nothing: these decode to the same bytes.
    const twin = `${signature.slice(0, -1)}${ALPHABET[last ^ 1]}`;
    expect(Buffer.from(twin, 'base64url').equals(Buffer.from(signature, 'base64url'))).to.equal(true);
    expect(decodeCursor(cursor, 'list', 2)).to.deep.equal([42, 'name']);
    expect(() => decodeCursor(`${cursor.slice(0, -signature.length)}${twin}`, 'list', 2)).to.throw(CursorError);
  });
});
