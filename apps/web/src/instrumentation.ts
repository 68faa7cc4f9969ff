/**
 * Runs once when the Next.js server starts: parse the environment now, so a wrong variable stops
 * the web process at boot with the variable named, not at the first request.
 */
export async function register(): Promise<void> {
  // biome-ignore lint/style/noProcessEnv: Next.js sets NEXT_RUNTIME; it is not configuration.
  if (process.env.NEXT_RUNTIME !== 'nodejs') return
  const { loadConfig } = await import('@fairlane/config')
  loadConfig()
}
