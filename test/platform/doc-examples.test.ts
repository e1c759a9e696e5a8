import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { codeBlocks, readDoc } from '../support/markdown.js';
import { childEnv, cliPath, killChildren, runCli } from '../support/processes.js';
import { makeTempDir, removeTempDirs, writeFiles } from '../support/temp.js';

/** The shell commands of a Markdown file's ```sh blocks, a command continued over lines (`\`) joined into one. */
function commands(markdown: string, section?: string): string[] {
  const text = section ? markdown.slice(markdown.indexOf(section), markdown.indexOf('\n## ', markdown.indexOf(section) + 1)) : markdown;
  return codeBlocks(text, 'sh').flatMap((b) => b.code.replace(/\\\n\s*/g, ' ').split('\n')).map((line) => line.trim());
}

/** Runs `command` as a shell would, with `npx restlayer` being this project's built CLI. */
function shell(command: string, cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; stderr: string }> {
  const child = spawn('sh', ['-c', command.replaceAll('npx restlayer', `node '${cliPath}'`)], { cwd, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stderr })));
}

/** Examples meant to be followed one after the other work that way (issue 42 found two that did not). */
describe('docs: examples that follow each other run one after the other', function () {
  this.timeout(180_000);
  after(async () => {
    await killChildren();
    removeTempDirs();
  });

  it('docs/services.md: every `new service` example succeeds in one project, in the order given (no name reused)', async () => {
    const scaffolds = commands(readDoc('docs/services.md')).filter((line) => line.startsWith('npx restlayer new service '));
    expect(scaffolds.length, 'the scaffold examples').to.be.at.least(2);
    const project = writeFiles(makeTempDir('restlayer-doc-scaffold-'), { 'services/index.ts': 'export const modules = [] as const;\n' });
    for (const command of scaffolds) {
      const run = await runCli(command.replace('npx restlayer ', '').split(/\s+/), { cwd: project, env: childEnv(), timeoutMs: 60_000 });
      expect(run.code, `${command}\n${run.stderr}`).to.equal(0);
    }
  });

  it('README "First steps", then docs/web.md: the users they add, in one development database, are each new', async () => {
    const adds = [
      ...commands(readDoc('README.md'), '## First steps'),
      ...commands(readDoc('docs/web.md')),
    ].filter((line) => /restlayer user add /.test(line));
    expect(adds.length, 'the user add lines of both').to.be.at.least(2);
    const cwd = makeTempDir('restlayer-doc-users-');
    const env = childEnv({ NODE_ENV: 'development', Authentication__PasswordHashCost: '10', Storage__SampleData: 'false' });
    for (const command of adds) {
      const run = await shell(command, cwd, env);
      expect(run.code, `${command}\n${run.stderr}`).to.equal(0);
    }
  });
});
