package classify

import (
	"slices"
	"testing"
)

// TestTagParentPlatform: a managed service named in the title or the cause,
// or recurring, brings in the platform it runs on (EKS is AWS, GKE is GCP),
// and Russian case forms of a name count ("в Кафке", "Кафку").
func TestTagParentPlatform(t *testing.T) {
	for _, tc := range []struct{ name, md, want string }{
		{"en", "# Pods evicted on our EKS cluster\n\nOn Monday the EKS control plane stopped answering for an hour. " +
			"The root cause was a node group whose EKS launch template pointed at a deleted image.\n", "aws"},
		{"ru", "# Падение кластера GKE\n\nВ понедельник кластер GKE перестал отвечать на запросы. " +
			"Причиной стал пул узлов GKE, который ссылался на удалённый образ.\n", "gcp"},
		{"zh", "# TKE 集群节点异常\n\n周一 TKE 集群的节点全部变为不可用。根本原因是 TKE 节点池引用了一个已经删除的镜像。\n", "tencent-cloud"},
		{"ru-inflected", "# Очередь сообщений встала\n\nВ Кафке закончилось место на диске, и продюсеры начали получать ошибки. " +
			"Причина: в Кафке не было ограничения на размер логов. Кафку перезапустили после очистки.\n", "kafka"},
	} {
		tags := classifyMarkdown(t, tc.md).Tags
		if !slices.Contains(tags, tc.want) {
			t.Errorf("%s: tags = %v, want %s", tc.name, tags, tc.want)
		}
	}
}

// TestTagParentNotFromOneMention: a service named once in passing brings in
// neither itself nor its platform.
func TestTagParentNotFromOneMention(t *testing.T) {
	md := "# Checkout latency\n\nCheckout got slow for an hour. We had once tried Lambda for resizing images. " +
		"The cause was a missing index in PostgreSQL; the PostgreSQL planner chose a full scan.\n"
	tags := classifyMarkdown(t, md).Tags
	if slices.Contains(tags, "aws") || slices.Contains(tags, "lambda") {
		t.Errorf("tags = %v, want no aws or lambda", tags)
	}
}
