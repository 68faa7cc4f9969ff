/** What the integration project's global setup hands to every test file through `inject`. */
declare module 'vitest' {
  export interface ProvidedContext {
    databaseServerUrl: string
    templateDatabase: string
    redisUrl: string
  }
}

export {}
