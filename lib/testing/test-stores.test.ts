import { expect } from 'chai';
import { storeArgument } from './test-stores.js';

describe('testing: the store named on the test command line (mocha --store postgres)', () => {
  it('reads --store NAME and --store=NAME', () => {
    expect(storeArgument(['node', 'mocha', 'dist/test/**/*.test.js', '--store', 'postgres'])).to.equal('postgres');
    expect(storeArgument(['node', 'mocha', '--store=sqlite', 'dist/test/**/*.test.js'])).to.equal('sqlite');
  });

  it('leaves the choice to the environment without one, or when the value is another runner\'s (run-suite --store all)', () => {
    expect(storeArgument(['node', 'mocha', 'dist/test/**/*.test.js'])).to.equal(undefined);
    expect(storeArgument(['node', 'run-suite.js', '--store', 'all'])).to.equal(undefined);
    expect(storeArgument(['node', 'mocha', '--store'])).to.equal(undefined);
  });
});
