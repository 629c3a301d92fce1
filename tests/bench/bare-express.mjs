// The yardstick: a bare Express 5 app in its own process, one route answering the same JSON as
// `GET /v1/me` (passed in BENCH_BARE_BODY). Prints its origin on stdout.
import express from 'express';

const body = JSON.parse(process.env.BENCH_BARE_BODY ?? '{}');
const app = express();
app.get('/v1/me', (_req, res) => {
  res.json(body);
});
const server = app.listen(0, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${server.address().port}`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
