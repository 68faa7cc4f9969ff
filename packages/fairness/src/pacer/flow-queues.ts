/**
 * The two containers the active-flow planner needs, each O(1) or O(log n) per operation so a tick
 * costs what it releases: a FIFO of flows (fq_codel's new and old lists) and a min-heap of flows
 * asleep until their allowance refills.
 */

/** First in, first out; amortised O(1). Items are never removed from the middle: callers skip stale ones. */
export class Fifo<T> {
  private items: T[] = []
  private head = 0

  get size(): number {
    return this.items.length - this.head
  }

  push(item: T): void {
    this.items.push(item)
  }

  peek(): T | undefined {
    return this.head < this.items.length ? this.items[this.head] : undefined
  }

  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined
    const item = this.items[this.head] as T
    this.head++
    // Compacted once half is consumed, so the array stays within twice the queue's length.
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head)
      this.head = 0
    }
    return item
  }

  clear(): void {
    this.items = []
    this.head = 0
  }
}

/** A binary min-heap by `key`. */
export class MinHeap<T> {
  private readonly entries: Array<{ key: number; item: T }> = []

  get size(): number {
    return this.entries.length
  }

  push(key: number, item: T): void {
    const entries = this.entries
    entries.push({ key, item })
    let at = entries.length - 1
    while (at > 0) {
      const parent = (at - 1) >> 1
      if ((entries[parent] as { key: number }).key <= key) break
      ;[entries[parent], entries[at]] = [
        entries[at] as { key: number; item: T },
        entries[parent] as { key: number; item: T },
      ]
      at = parent
    }
  }

  peekKey(): number | undefined {
    return this.entries[0]?.key
  }

  pop(): T | undefined {
    const entries = this.entries
    const top = entries[0]
    const last = entries.pop()
    if (!top || !last) return undefined
    if (entries.length > 0) {
      entries[0] = last
      let at = 0
      for (;;) {
        const left = at * 2 + 1
        const right = left + 1
        let smallest = at
        if (
          left < entries.length &&
          (entries[left] as { key: number }).key < (entries[smallest] as { key: number }).key
        )
          smallest = left
        if (
          right < entries.length &&
          (entries[right] as { key: number }).key < (entries[smallest] as { key: number }).key
        )
          smallest = right
        if (smallest === at) break
        ;[entries[smallest], entries[at]] = [
          entries[at] as { key: number; item: T },
          entries[smallest] as { key: number; item: T },
        ]
        at = smallest
      }
    }
    return top.item
  }

  clear(): void {
    this.entries.length = 0
  }
}
