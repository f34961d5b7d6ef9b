-- releaseEndedHolds ["pending","queue","running","waitingApproval","approved"]
delete from "workspace_run" where "executor" is null and "job_id" not in (select "id" from "job" where "status" in ($1, $2, $3, $4, $5))

-- approvedUnheld ["approved",20]
select "j"."id" from "workspace_run" inner join "job" as "j" on "j"."id" = "workspace_run"."job_id" where "workspace_run"."executor" is null and "j"."status" = $1 and exists (select "p"."id" from "workspace" as "p" where "p"."id" = "j"."workspace_id" and "p"."agent_id" is null) limit $2

-- takeablePending ["pending",1,"pending","queue","running","waitingApproval","approved","",20]
select "j".*, (select count(*) as "n" from "workspace_run" as "r" inner join "job" as "h" on "h"."id" = "r"."job_id" where "h"."organization_id" = "j"."organization_id" and "r"."executor" is not null) as "organization_runs" from "job" as "j" left join "organization_turn" as "t" on "t"."organization_id" = "j"."organization_id" where "j"."status" = $1 and exists (select "p"."id" from "workspace" as "p" where "p"."id" = "j"."workspace_id" and "p"."agent_id" is null) and not exists (select "job_id" from "workspace_run" where "workspace_run"."workspace_id" = "j"."workspace_id") and not exists (select "w"."id" from "workspace" as "w" where "w"."id" = "j"."workspace_id" and "w"."locked" = $2) and not exists (select "e"."id" from "job" as "e" where "e"."workspace_id" = "j"."workspace_id" and "e"."status" in ($3, $4, $5, $6, $7) and ("e"."created_date" < "j"."created_date" or ("e"."created_date" = "j"."created_date" and "e"."id" < "j"."id"))) order by "organization_runs", coalesce("t"."taken_at", $8), "j"."created_date", "j"."id" limit $9

-- heldJobs []
select * from "workspace_run" where "executor" is not null
