import { describe, expect, it } from 'vitest'
import type { ProfileStore, UserProfile } from './ports'
import { PROFILE_NAME_MAX, updateProfile } from './update-profile'

function fakeStore(userIds: string[]) {
  const saved = new Map<string, UserProfile>()
  const store: ProfileStore = {
    async saveProfile({ userId, ...profile }) {
      if (!userIds.includes(userId)) return false
      saved.set(userId, profile)
      return true
    },
  }
  return { store, saved }
}

describe('updateProfile', () => {
  it('saves a trimmed name and an IANA zone', async () => {
    const { store, saved } = fakeStore(['u1'])
    const outcome = await updateProfile({ userId: 'u1', name: '  Ada ', timeZone: 'Asia/Tokyo' }, { store })
    expect(outcome).toEqual({ kind: 'saved', profile: { name: 'Ada', timeZone: 'Asia/Tokyo' } })
    expect(saved.get('u1')).toEqual({ name: 'Ada', timeZone: 'Asia/Tokyo' })
  })

  it('stores an empty zone as null: the browser decides', async () => {
    const { store, saved } = fakeStore(['u1'])
    await updateProfile({ userId: 'u1', name: 'Ada', timeZone: '' }, { store })
    expect(saved.get('u1')).toEqual({ name: 'Ada', timeZone: null })
  })

  it.each(['Mars/Olympus_Mons', 'UTC+7', 'GMT-03:00', '+02:00', 'Europe/'])(
    'refuses %s as a zone, naming the field and saving nothing',
    async (timeZone) => {
      const { store, saved } = fakeStore(['u1'])
      const outcome = await updateProfile({ userId: 'u1', name: 'Ada', timeZone }, { store })
      expect(outcome).toEqual({ kind: 'invalid', errors: { timeZone: expect.stringContaining(timeZone) } })
      expect(saved.size).toBe(0)
    },
  )

  it('refuses an empty or overlong name', async () => {
    const { store } = fakeStore(['u1'])
    expect(await updateProfile({ userId: 'u1', name: '  ', timeZone: 'UTC' }, { store })).toEqual({
      kind: 'invalid',
      errors: { name: 'Enter your name' },
    })
    const long = 'a'.repeat(PROFILE_NAME_MAX + 1)
    expect(await updateProfile({ userId: 'u1', name: long, timeZone: 'nope' }, { store })).toMatchObject({
      kind: 'invalid',
      errors: { name: expect.any(String), timeZone: expect.any(String) },
    })
  })

  it('answers not-found for a user that is gone', async () => {
    const { store } = fakeStore([])
    expect(await updateProfile({ userId: 'gone', name: 'Ada', timeZone: 'UTC' }, { store })).toEqual({
      kind: 'not-found',
    })
  })
})
