import { defineConfig } from 'drizzle-kit'

/**
 * `pnpm db:generate` writes a new migration under ./drizzle from the schema; no database needed.
 * Column names are explicit snake_case in the schema, so no `casing` option here or in the client.
 */
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/schema/index.ts',
  out: './drizzle',
  strict: true,
})
