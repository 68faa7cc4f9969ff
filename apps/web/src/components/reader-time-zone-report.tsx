import { getReaderTimeZone } from '@/server/reader-time-zone'
import { BrowserTimeZone } from './browser-time-zone'

/** The browser's zone reported back (BrowserTimeZone), told which zone this page's times are in. */
export async function ReaderTimeZoneReport() {
  const { zone, source } = await getReaderTimeZone()
  return <BrowserTimeZone shownZone={zone} fromProfile={source === 'profile'} />
}
