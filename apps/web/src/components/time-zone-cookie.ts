/**
 * The cookie in which the browser reports its zone (`BrowserTimeZone`) for the server to write times
 * in; its own module so the client bundle does not take the zone rules with it.
 */
export const TIME_ZONE_COOKIE = 'fairlane_tz'
