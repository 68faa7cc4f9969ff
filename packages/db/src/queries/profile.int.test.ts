import { updateProfile } from '@fairlane/core'
import { setupTestEnvironment } from '@fairlane/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDatabase, type DatabaseHandle } from '../client'
import { users } from '../schema'
import { findUserProfile, profileStore, saveUserProfile } from './profile'

const env = setupTestEnvironment('db-profile')

let database: DatabaseHandle

beforeAll(async () => {
  database = createDatabase(env.databaseUrl)
  await database.db.insert(users).values([
    { id: 'user-ada', name: 'Ada', email: 'ada@example.test' },
    { id: 'user-bob', name: 'Bob', email: 'bob@example.test', timeZone: 'Europe/Paris' },
  ])
})

afterAll(async () => {
  await database?.close()
})

describe('profile queries', () => {
  it('reads a user without a zone as null (the browser decides)', async () => {
    expect(await findUserProfile(database.db, { userId: 'user-ada' })).toEqual({
      name: 'Ada',
      timeZone: null,
    })
    expect(await findUserProfile(database.db, { userId: 'nobody' })).toBeNull()
  })

  it('saves the name and zone of that user only, and clears the zone again', async () => {
    expect(
      await saveUserProfile(database.db, { userId: 'user-ada', name: 'Ada L.', timeZone: 'Asia/Tokyo' }),
    ).toBe(true)
    expect(await findUserProfile(database.db, { userId: 'user-ada' })).toEqual({
      name: 'Ada L.',
      timeZone: 'Asia/Tokyo',
    })
    expect(await findUserProfile(database.db, { userId: 'user-bob' })).toEqual({
      name: 'Bob',
      timeZone: 'Europe/Paris',
    })
    await saveUserProfile(database.db, { userId: 'user-ada', name: 'Ada L.', timeZone: null })
    expect((await findUserProfile(database.db, { userId: 'user-ada' }))?.timeZone).toBeNull()
    expect(await saveUserProfile(database.db, { userId: 'nobody', name: 'X', timeZone: null })).toBe(false)
  })

  it('keeps an invalid zone out through core’s updateProfile', async () => {
    const store = profileStore(database.db)
    expect(
      await updateProfile({ userId: 'user-bob', name: 'Bob', timeZone: 'Mars/Base' }, { store }),
    ).toMatchObject({
      kind: 'invalid',
    })
    expect((await findUserProfile(database.db, { userId: 'user-bob' }))?.timeZone).toBe('Europe/Paris')
  })
})
