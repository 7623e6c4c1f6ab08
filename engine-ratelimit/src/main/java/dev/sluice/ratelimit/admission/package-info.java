/**
 * Admission control (CruiseDB §V, §VII "Request Rate Limiter"): a token bucket with a bounded request waiting queue in
 * front of each partition ({@link dev.sluice.ratelimit.admission.TokenBucketGate}), and the controllers that set its
 * rate: CruiseDB's adaptive feedback controller ({@link dev.sluice.ratelimit.admission.AdaptiveAdmission}, Eq. 2 and the
 * conservative rate of Eq. 3) and a static-rate baseline (§VIII-G).
 *
 * <p>Depends on engine-core only. Controllers are pure (time comes as an argument); the gate reads time through an
 * injected {@link com.google.common.base.Ticker} and waits through an injected {@link
 * dev.sluice.ratelimit.admission.TokenBucketGate.Sleeper}, so tests never sleep.
 */
package dev.sluice.ratelimit.admission;
