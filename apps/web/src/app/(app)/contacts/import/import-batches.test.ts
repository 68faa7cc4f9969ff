import { afterEach, describe, expect, it, vi } from 'vitest'
import { BatchSender, emptyReport, ImportStopped, type PendingRow } from './import-batches'

interface SentBatch {
  header: string[]
  rows: PendingRow[]
}

/** A stand-in for the rows route: the first row of each email wins within a batch, like the server. */
function fakeServer(sent: SentBatch[], status = 200, answer?: unknown) {
  return vi.fn(async (_url: string, init: RequestInit) => {
    const batch = JSON.parse(String(init.body)) as SentBatch
    sent.push(batch)
    if (status !== 200) return Response.json(answer, { status })
    return Response.json({
      columns: { emailIndex: 0, ignored: [] },
      created: batch.rows.length,
      updated: 0,
      rejected: [],
      blank: 0,
    })
  })
}

afterEach(() => {
  vi.unstubAllGlobals()
})

describe('BatchSender', () => {
  it('reports an email repeated in a later batch and does not send it again', async () => {
    const sent: SentBatch[] = []
    vi.stubGlobal('fetch', fakeServer(sent))
    const report = emptyReport()
    const sender = new BatchSender(['email', 'name'], report)
    await sender.send([
      { line: 2, cells: ['a@b.test', 'A'] },
      { line: 3, cells: ['c@b.test', 'C'] },
    ])
    await sender.send([
      { line: 4, cells: [' A@B.TEST ', 'Again'] },
      { line: 5, cells: ['d@b.test', 'D'] },
    ])
    expect(sent[1]?.rows.map((row) => row.line)).toEqual([5])
    expect(sent.every((batch) => batch.header.join() === 'email,name')).toBe(true)
    expect(report).toMatchObject({ created: 3, rows: 4 })
    expect(report.rejected).toEqual([
      {
        line: 4,
        email: 'A@B.TEST',
        reason: 'duplicate email, first seen on line 2 (that row is the one imported)',
      },
    ])
  })

  it('stops with the server’s header message', async () => {
    vi.stubGlobal(
      'fetch',
      fakeServer([], 400, {
        error: {
          code: 'validation_failed',
          details: [{ path: 'header', message: 'Could not find an email column' }],
        },
      }),
    )
    const sender = new BatchSender(['a|b'], emptyReport())
    await expect(sender.send([])).rejects.toEqual(new ImportStopped('Could not find an email column'))
  })
})
