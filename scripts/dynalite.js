// dynalite for the tests: the npm package's server on a loopback port, kept
// up when a client drops a request mid-way. dynalite rethrows a request's
// "aborted" error (ECONNRESET) from inside its handler, which kills the whole
// server (architect/dynalite#183); a test that SIGKILLs `gpusla serve` with a
// request in flight then takes every later DynamoDB test down with it. Such a
// dropped request is logged and forgotten, as a real DynamoDB does; any other
// uncaught error still stops the server.
//
// Usage: node scripts/dynalite.js <port> <host>
'use strict'
const path = require('path')
const [port, host] = process.argv.slice(2)
if (!/^[0-9]+$/.test(port || '') || !host) {
  console.error('usage: node scripts/dynalite.js <port> <host>')
  process.exit(2)
}
const dynalite = require(path.join(__dirname, '..', '.tools', 'node', 'node_modules', 'dynalite'))

process.on('uncaughtException', (err) => {
  if (err && err.code === 'ECONNRESET' && err.message === 'aborted') {
    console.error('dynalite: a client dropped its request mid-way (ignored): %s', err.message)
    return
  }
  console.error('dynalite: fatal: %s', (err && err.stack) || err)
  process.exit(1)
})

const server = dynalite({}).listen(Number(port), host, () => {
  const a = server.address()
  console.log('Dynalite listening at: http://%s:%s', host, a.port)
})
