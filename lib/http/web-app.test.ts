import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { webApp, webAppDir } from './web-app.js';

describe('web app: the built app is looked for where the build puts it', () => {
  it('refuses to start the app when it is not built, naming the setting and the fix', () => {
    const empty = mkdtempSync(join(tmpdir(), 'restlayer-web-'));
    try {
      expect(() => webApp({ RestAPI: { Path: '/api' } } as never, empty)).to.throw(/Web:Enabled: the browser app is not built .* run npm run build/);
      expect(webAppDir.replace(/\\/g, '/')).to.match(/\/dist\/web$/);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
