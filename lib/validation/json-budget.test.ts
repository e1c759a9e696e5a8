import { expect } from 'chai';
import { SyntaxKind } from 'jsonc-parser';
import { TOKEN } from './json-budget.js';

describe('measureJson reads jsonc-parser\'s tokens by their numbers', () => {
  it('TOKEN names each kind as jsonc-parser\'s SyntaxKind numbers it', () => {
    expect(TOKEN).to.deep.equal({
      OpenBrace: SyntaxKind.OpenBraceToken, CloseBrace: SyntaxKind.CloseBraceToken, OpenBracket: SyntaxKind.OpenBracketToken,
      CloseBracket: SyntaxKind.CloseBracketToken, Colon: SyntaxKind.ColonToken, Null: SyntaxKind.NullKeyword, True: SyntaxKind.TrueKeyword,
      False: SyntaxKind.FalseKeyword, String: SyntaxKind.StringLiteral, Number: SyntaxKind.NumericLiteral, EOF: SyntaxKind.EOF,
    });
  });
});
