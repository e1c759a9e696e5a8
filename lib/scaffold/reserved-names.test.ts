import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { layerRoutesUnder } from './reserved-names.js';

/** The layer's route names come from its route folder: a route it adds is reserved with no list to keep. */
describe('restlayer new service: names of the layer\'s routes', () => {
  it('reads them from the route folder: every path under a first segment, none for a name no route starts with', () => {
    const dir = mkdtempSync(join(tmpdir(), 'restlayer-layer-routes-'));
    try {
      mkdirSync(join(dir, 'audit-export'));
      writeFileSync(join(dir, 'audit-export', 'index.js'), '');
      writeFileSync(join(dir, 'audit-export', '[day].js'), '');
      writeFileSync(join(dir, 'audit-export', '_helper.js'), '');
      writeFileSync(join(dir, 'status.js'), '');
      expect(layerRoutesUnder('audit-export', dir)).to.deep.equal(['/audit-export', '/audit-export/:day']);
      expect(layerRoutesUnder('status', dir)).to.deep.equal(['/status']);
      expect(layerRoutesUnder('audit', dir)).to.deep.equal([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the layer\'s own folder gives login-throttle, health, lookup-table and authentication', () => {
    for (const name of ['login-throttle', 'health', 'lookup-table', 'authentication', 'auth']) expect(layerRoutesUnder(name), name).to.not.deep.equal([]);
  });
});
