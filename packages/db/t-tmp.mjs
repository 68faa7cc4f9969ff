import postgres from 'postgres'
const prepare = process.argv[2] === 'true'
const url = 'postgres://postgres@127.0.0.1:16432/postgres'
const a = postgres(url, { max: 1, prepare, onnotice: () => {} })
const b = postgres(url, { max: 1, prepare, onnotice: () => {} })
const timer = setTimeout(() => { console.log('HUNG', { prepare }); process.exit(2) }, 5000)
const q = (c, i) => c`select ${i}::int as n, pg_backend_pid() as pid`
try {
  console.log('a1', await q(a, 1))
  // b holds that server in an open transaction, so a's next statement lands on another server
  await b.begin(async (tx) => {
    console.log('b', await tx`select pg_backend_pid() as pid`)
    console.log("a2", await a.begin((t) => q(t, 2)))
  })
  console.log('ok', prepare)
} catch (e) { console.log('ERR', prepare, e.code, e.message) }
clearTimeout(timer)
await a.end(); await b.end()
