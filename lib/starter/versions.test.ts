import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { packagePath } from '../package-paths.js';
import { STARTER_DEPENDENCIES, STARTER_DEV_DEPENDENCIES } from './versions.js';

describe('starter: the versions a new project depends on', () => {
  const manifest = JSON.parse(readFileSync(packagePath('package.json'), 'utf8')) as { devDependencies: Record<string, string>; peerDependencies: Record<string, string> };

  it("are restlayer's own development versions, so a started project builds and tests with what restlayer does", () => {
    for (const [name, range] of Object.entries(STARTER_DEV_DEPENDENCIES)) expect(range, name).to.equal(manifest.devDependencies[name]);
  });

  it("take the optional peers at restlayer's peer range", () => {
    for (const [name, range] of Object.entries(STARTER_DEPENDENCIES)) expect(range, name).to.equal(manifest.peerDependencies[name]);
  });
});
