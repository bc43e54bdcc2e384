{{/* Names and labels shared by every object. */}}
{{- define "gpusla.name" -}}{{ .Release.Name | trunc 40 | trimSuffix "-" }}{{- end -}}

{{- define "gpusla.labels" -}}
app.kubernetes.io/name: gpusla
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "gpusla.probeSelector" -}}
app.kubernetes.io/name: gpusla
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: gpuprobe
{{- end -}}

{{/* image "probe"|"serve": repository@digest, else repository:tag. */}}
{{- define "gpusla.image" -}}
{{- $i := index .root.Values.image .which -}}
{{- if $i.digest -}}{{ $i.repository }}@{{ $i.digest }}{{- else -}}{{ $i.repository }}:{{ $i.tag }}{{- end -}}
{{- end -}}

{{/* The probe's config: the chart's keys over probe.config. stress: true for the stress DaemonSet. */}}
{{- define "gpusla.probeConfig" -}}
{{- $v := .root.Values -}}
{{- $cfg := deepCopy $v.probe.config -}}
{{- $backend := dict "url" $v.backend.url -}}
{{- if $v.backend.caSecret }}{{- $_ := set $backend "ca_file" "/etc/gpuprobe/ca/ca.crt" -}}{{- end -}}
{{- $_ := set $cfg "backend" $backend -}}
{{- $_ := set $cfg "enrol" (dict "token_file" "/etc/gpuprobe/enrol/token" "state" (printf "%s/enrolment.json" $v.probe.stateDir)) -}}
{{- $_ := set $cfg "spool" (dict "dir" (printf "%s/spool" $v.probe.stateDir)) -}}
{{- $_ := set $cfg "host_root" "/host" -}}
{{- $_ := set $cfg "metrics" (dict "listen" (printf "0.0.0.0:%d" (int $v.probe.metricsPort)) "remote" true) -}}
{{- $_ := set $cfg "kubernetes" (dict "renter_pods" "true") -}}
{{- $sch := deepCopy (default dict $cfg.schedules) -}}
{{- if .stress -}}
{{- $_ := set $sch "stress" $v.probe.stress.schedule -}}
{{- $_ := set $cfg "stress" (merge (dict "quiet_window" $v.probe.stress.quietWindow) (default dict $cfg.stress)) -}}
{{- else -}}
{{- $_ := set $sch "stress" "off" -}}
{{- end -}}
{{- $_ := set $cfg "schedules" $sch -}}
{{- toYaml $cfg -}}
{{- end -}}
