/** The started project's README.md: the commands, where things are, and the first changes one makes. */
export function readmeFile(name: string): string {
  const db = name.replace(/[^a-z0-9]/g, '_');
  return `# ${name}

A REST API on [restlayer](https://www.npmjs.com/package/restlayer). Made by \`restlayer init\`.

\`\`\`sh
npm install
npm test          # builds (tsc) and runs src/test on SQLite: a real server on a free port per suite
npm run dev       # serves http://127.0.0.1:8080, compiles and restarts on every saved change
\`\`\`

\`npm run dev\` prints the URL, the API reference and how to make a user. Then, in another terminal:

\`\`\`sh
echo 'correct horse battery staple' | npx ${name} user add alice --role Administrator --password-stdin
curl -s -X POST localhost:8080/auth/jwt -H 'Content-Type: application/json' \\
     -d '{"userName":"alice","password":"correct horse battery staple"}'
ACCESS=eyJ...     # the accessToken of that answer
curl -s -X POST localhost:8080/task -H "Authorization: Bearer $ACCESS" -H 'Content-Type: application/json' \\
     -d '{"title":"Try restlayer"}'
curl -s 'localhost:8080/task?done=false&getTotalCount=true' -H "Authorization: Bearer $ACCESS"
\`\`\`

\`npm run build\` then \`npm start\` serves the build without the watcher (\`PORT\` picks the port).

## Where things are

| path | what |
| --- | --- |
| \`src/main.ts\` | the project's CLI (\`npx ${name} serve\`, \`user add\`, \`db reset\`, \`config check\`...): restlayer's commands over this application |
| \`src/app.ts\` | the application: its modules (\`restlayer new service\` adds to the list) and its route folder |
| \`src/services/task/task.ts\` | the example resource, declared as data: its fields and what lists may filter and sort by |
| \`src/services/task/migrations/\` | its table, one file per migration; a released one is never edited: \`migration make\` writes the next |
| \`src/routes/task/\` | one line per route file: the layer serves the declaration (a path segment \`[_taskId]\` is a parameter) |
| \`src/test/task/task.test.ts\` | its test: a real server, real HTTP calls |
| \`.mocharc.json\` | mocha's settings: a test server's first start may take more than its default 2 s |
| \`config/settings.json\` | the project's settings; \`__\` environment variables override them (\`Storage__Provider=postgres\`) |
| \`data/\` | the development database (SQLite) and the development keys, made on the first start; never committed |

## PostgreSQL

One setting: \`"Provider": "postgres"\` in \`config/settings.json\` (or \`Storage__Provider=postgres\` in the environment).
The database is \`Storage:Postgres:Url\` there (\`${db}\` on 127.0.0.1, user postgres): make it once with \`createdb ${db}\`.
\`npx ${name} config check\` says whether it can be reached. The tests run on PostgreSQL with \`npm run test:postgres\`
(\`mocha --store postgres\`: a new database per test server, on the server of \`RESTLAYER_TEST_PG_URL\`, default
\`postgres://postgres@127.0.0.1:5432/test\`).

## Starting the database over

\`npx ${name} db reset\` empties the development database (users included); the next start makes the schema again.
\`npm run dev\` keeps the database across restarts.

## Adding a field

A field of a resource is one line, one command and a test:

1. the field in the declaration (\`src/services/task/task.ts\`), e.g. \`priority: field.integer({ min: 1, max: 5 }).sortable().filter(),\`
2. \`npm run build && npx ${name} migration make\`: it compares the declarations with the schema the migrations build and
   writes the next migration (\`src/services/task/migrations/0002-task-priority.ts\`, its column and index) for you to read
   and commit; the first one has run on your database already, and a released migration is never edited;
3. a test that sends and reads it, in \`src/test/task/task.test.ts\`.

## Another service

\`npx restlayer new service invoice --field number:text:required:max=20:unique --field amount:decimal:required:sortable:filterable\`
writes its service, route files and tests under \`src/\` and adds it to \`src/app.ts\`. restlayer's documentation is in
\`node_modules/restlayer/docs/\` (start with \`getting-started.md\`; \`services.md\` covers declarations and the scaffold).
`;
}
