//! The simulated server: `workers` threads take transactions from one queue,
//! first come first served, and hold each for its service time, slept on the
//! kernel's high-resolution timer (tokio's timer would add up to a
//! millisecond). Stalls, outages, errors and outcomes follow the
//! [`SimConfig`].
//!
//! Each worker keeps its schedule in ideal time: a transaction starts when it
//! was submitted or when the worker's previous one was due to finish,
//! whichever is later, not when the worker's thread happened to wake. A late
//! wake-up (tens of microseconds on a virtual machine, now and then a
//! millisecond) then delays that one answer only, instead of lengthening
//! every service time and with it the queue: the queue is the one theory
//! describes.

use std::time::{Duration, Instant};

use tokio::sync::oneshot;
use txbench_core::driver::timer;
use txbench_core::rng::Rand;
use txbench_core::workload::Outcome;
use txbench_core::{DbError, ErrorKind};

use super::config::{Outage, SimConfig};

/// One transaction sent to the server.
pub struct Request {
    /// When the session submitted it.
    pub submitted: Instant,
    /// The share of its type that commits (the rest roll back as expected).
    pub success: f64,
    /// Where the answer goes: the outcome and the time the server held it.
    pub reply: oneshot::Sender<Result<(Outcome, Duration), DbError>>,
}

/// The server's queue; the worker threads end when it is dropped.
pub struct Server {
    queue: async_channel::Sender<Request>,
    outages: Outages,
}

impl Server {
    /// Start `config.workers` worker threads; times in `config` count from now.
    pub fn start(config: &SimConfig, seed: u64) -> std::io::Result<Server> {
        let (queue, jobs) = async_channel::unbounded();
        let started = Instant::now();
        let outages = Outages {
            started,
            outages: config.outages.clone(),
        };
        for i in 0..config.workers {
            let worker = Worker {
                config: config.clone(),
                outages: outages.clone(),
                started,
                free_at: started,
                rng: Rand::derive(seed, i as u64),
            };
            let jobs = jobs.clone();
            std::thread::Builder::new()
                .name("txbench-sim".into())
                .spawn(move || worker.serve(&jobs))?;
        }
        Ok(Server { queue, outages })
    }

    /// Whether the server is in one of its outages at `t`.
    pub fn is_down(&self, t: Instant) -> bool {
        self.outages.contains(t)
    }

    /// Queue a transaction.
    pub fn submit(&self, request: Request) -> Result<(), DbError> {
        self.queue
            .try_send(request)
            .map_err(|_| DbError::new(ErrorKind::Connection, "sim: the server has stopped"))
    }
}

/// The server's outages, placed in time.
#[derive(Clone)]
struct Outages {
    started: Instant,
    outages: Vec<Outage>,
}

impl Outages {
    fn contains(&self, t: Instant) -> bool {
        let since = t.saturating_duration_since(self.started);
        self.outages
            .iter()
            .any(|o| since >= o.at && since < o.at + o.length)
    }
}

/// What a transaction or a connection gets from a server that is down.
pub fn down() -> DbError {
    DbError::new(ErrorKind::Connection, "sim: the server is down (outage)")
}

struct Worker {
    config: SimConfig,
    outages: Outages,
    started: Instant,
    /// When its last transaction was due to finish, in ideal time.
    free_at: Instant,
    rng: Rand,
}

impl Worker {
    fn serve(mut self, jobs: &async_channel::Receiver<Request>) {
        timer::reduce_slack();
        while let Ok(request) = jobs.recv_blocking() {
            let answer = self.answer(request.submitted, request.success);
            let _ = request.reply.send(answer);
        }
    }

    /// Serve one transaction: fail at once in an outage; otherwise wait out a
    /// stall, hold it for its service time (longer if a stall begins
    /// meanwhile), then fail it with the error share or end it as its
    /// success share says.
    fn answer(&mut self, submitted: Instant, success: f64) -> Result<(Outcome, Duration), DbError> {
        if self.outages.contains(submitted) {
            return Err(down());
        }
        let start = self.after_stall(submitted.max(self.free_at));
        let service = self.config.service.draw(&mut self.rng);
        let finish = self.stretched_over_stalls(start, service);
        self.free_at = finish;
        timer::sleep_until(finish);
        let held = finish.saturating_duration_since(submitted);
        if let Some((share, kind)) = self.config.errors
            && self.rng.unit() < share
        {
            return Err(DbError::new(kind, format!("sim: a {} error", kind.name())));
        }
        let outcome = if self.rng.unit() < success {
            Outcome::Committed
        } else {
            Outcome::ExpectedRollback
        };
        Ok((outcome, held))
    }

    /// `t`, or the end of the stall it falls in.
    fn after_stall(&self, t: Instant) -> Instant {
        let Some(stall) = self.config.stall else {
            return t;
        };
        let since = t.saturating_duration_since(self.started);
        let periods = since.as_nanos() / stall.period.as_nanos();
        let begun = stall.period * periods as u32;
        if periods >= 1 && since < begun + stall.length {
            self.started + begun + stall.length
        } else {
            t
        }
    }

    /// When work of `service` begun at `start` ends, the stalls that begin
    /// before it is done added (the server answers nothing during one).
    fn stretched_over_stalls(&self, start: Instant, service: Duration) -> Instant {
        let mut finish = start + service;
        let Some(stall) = self.config.stall else {
            return finish;
        };
        let mut next = {
            let since = start.saturating_duration_since(self.started);
            let periods = since.as_nanos() / stall.period.as_nanos() + 1;
            self.started + stall.period * periods as u32
        };
        while next < finish {
            finish += stall.length;
            next += stall.period;
        }
        finish
    }
}
