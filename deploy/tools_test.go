package deploy

import (
	_ "github.com/google/go-containerregistry/pkg/v1/layout"
	_ "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	_ "github.com/prometheus/prometheus/model/rulefmt"
	_ "github.com/prometheus/prometheus/promql/parser"
	_ "helm.sh/helm/v4/pkg/chart/v2/loader"
	_ "helm.sh/helm/v4/pkg/engine"
	_ "k8s.io/api/apps/v1"
	_ "k8s.io/apimachinery/pkg/runtime/serializer/json"
)
