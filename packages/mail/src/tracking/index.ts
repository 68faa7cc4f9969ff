export { isTrackableUrl, pixelTag, type TrackHtmlOptions, trackableUrls, trackHtml } from './rewrite-links'
export { type HtmlLink, type ScannedHtml, scanHtml } from './scan-html'
