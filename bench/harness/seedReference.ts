/**
 * Reference records for the codes of the week fixture's read model, so the board's `…Info` fields
 * name real records (figure 5): one record per (kind, code) the flights use — airlines, aircraft
 * types, registrations, statuses, service types, stands, gates, counters, belts, chutes, bridges,
 * delays, services, airports, abnormal reasons, VIP guests — except about one code in ten, left
 * without a record (those info fields are null). VIPL records carry a personal name, which both
 * servers must withhold. Written straight into reference_record (not through the reference
 * projector): the fixture's reference checkpoint stays where it is.
 */
import type { Queryable } from '../../src/platform/db.ts';

export async function seedReference(q: Queryable): Promise<number> {
  const { rowCount } = await q.query(
    `INSERT INTO reference_record (kind, code, fields, name, name_local, last_position, last_msg_id, updated_at)
     SELECT k.kind, k.code,
            CASE WHEN k.kind = 'VIPL' THEN jsonb_build_object('VPCD', k.code, 'VRNK', '2', 'VPNM', 'Guest ' || k.code, 'VPTL', '+86 10 0000')
                 ELSE jsonb_build_object('CODE', k.code, 'ENNM', k.kind || ' ' || k.code, 'CNNM', '名' || k.code, 'REMK', 'bench') END,
            CASE WHEN k.kind = 'VIPL' THEN NULL ELSE k.kind || ' ' || k.code END,
            CASE WHEN k.kind = 'VIPL' THEN NULL ELSE '名' || k.code END,
            1, 1, '2025-03-01T00:00:00Z'
       FROM (SELECT 'AIRL' AS kind, airline AS code FROM flight_schd
             UNION SELECT 'AIRC', aircraft_type FROM flight_schd
             UNION SELECT 'REGN', registration FROM flight_schd
             UNION SELECT 'STTS', status FROM flight_schd
             UNION SELECT 'FLTL', service_type FROM flight_schd
             UNION SELECT 'ABNR', abnormal_reason FROM flight_schd
             UNION SELECT 'SLST', stand_code FROM flight_stand
             UNION SELECT 'GLST', gate_code FROM flight_gate
             UNION SELECT 'CLST', counter_code FROM flight_counter
             UNION SELECT 'BLST', belt_code FROM flight_belt
             UNION SELECT 'CHLT', chute_code FROM flight_chute
             UNION SELECT 'ABDG', bridge_code FROM flight_bridge
             UNION SELECT 'DLYL', code FROM flight_delay
             UNION SELECT 'HLTR', code FROM flight_service
             UNION SELECT 'ARPT', airport FROM flight_route_point
             UNION SELECT 'VIPL', vip_code FROM flight_vip) k
      WHERE k.code IS NOT NULL AND k.code <> '' AND abs(hashtext(k.kind || k.code)) % 10 <> 0
     ON CONFLICT (kind, code) DO NOTHING`,
  );
  await q.query('ANALYZE reference_record');
  return rowCount ?? 0;
}
