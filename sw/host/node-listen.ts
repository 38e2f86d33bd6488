/**
 * @module host/node-listen
 * What the command line says when it cannot listen: the port and how to pick another, in
 * place of Node's `listen EADDRINUSE: address already in use 127.0.0.1:8080`.
 */

/** `err` from listening on `host`:`port` as a sentence for the person starting the server. */
export function listenError(err: unknown, port: number, host: string): Error {
  const code = (err as NodeJS.ErrnoException | undefined)?.code
  const another = `Pick another port with --port (npm start -- --port ${port === 8080 ? 8081 : 8080}) or the PORT environment variable (PORT=${port === 8080 ? 8081 : 8080} npm start); --port 0 takes any free one.`
  if (code === 'EADDRINUSE') {
    return new Error(`Port ${port} on ${host} is in use by another program (perhaps another Outpost). Stop that one, or ${another[0]!.toLowerCase()}${another.slice(1)} Nothing was created or changed.`)
  }
  if (code === 'EACCES') return new Error(`Port ${port} on ${host} needs administrator rights on this system. ${another}`)
  if (code === 'EADDRNOTAVAIL') return new Error(`This machine has no address ${host} to listen on: check --host (127.0.0.1 for this machine only, 0.0.0.0 for every network).`)
  return err instanceof Error ? err : new Error(String(err))
}
