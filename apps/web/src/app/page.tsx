import Link from 'next/link'

const PROMISES = [
  {
    title: 'Nothing lost, nothing sent twice',
    body: 'Accepted mail is written to PostgreSQL with its outbox entry in one transaction, and every send is idempotent: crashes, Redis restarts and flaky SMTP servers delay mail, never lose or repeat it.',
  },
  {
    title: 'Login codes never wait',
    body: 'One-time codes and password resets travel their own lane, with their own workers and SMTP connections, so no newsletter ever sits in front of them.',
  },
  {
    title: 'Fair shares for every tenant',
    body: 'Each tenant sends within its plan, and spare capacity is shared by weight: a 12-recipient campaign starts within seconds, however large everyone else’s backlog is.',
  },
]

export default function LandingPage() {
  return (
    <>
      <header className="site-header">
        <Link href="/" className="brand">
          Fairlane
        </Link>
        <nav aria-label="Account" className="account">
          <Link href="/sign-up">Create an account</Link>
          <Link href="/sign-in" className="button">
            Sign in
          </Link>
        </nav>
      </header>
      <main>
        <section className="hero" aria-labelledby="hero-title">
          <h1 id="hero-title">Email delivery with fairness built in</h1>
          <p>
            Fairlane sends your campaigns, one-time codes and password resets over SMTP for many businesses at
            once — schedule newsletters in the web app, call the API for transactional mail, and let the
            platform keep every tenant within its plan.
          </p>
        </section>
        <ul className="promises">
          {PROMISES.map((promise) => (
            <li key={promise.title}>
              <h2>{promise.title}</h2>
              <p>{promise.body}</p>
            </li>
          ))}
        </ul>
      </main>
      <footer className="site-footer">
        <span>Fairlane</span>
        <a href="/api/health/ready">Service status</a>
      </footer>
    </>
  )
}
