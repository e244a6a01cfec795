import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()
print(f"Number of devices: {strategy.num_replicas_in_sync}")

with strategy.scope():
    W = tf.Variable(tf.random.normal((784, 10)), name="weights")
    b = tf.Variable(tf.zeros((10,)), name="biases")

def loss_fn(y_true, y_pred):
    return tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y_true, logits=y_pred))

def train_step(images, labels):
  with tf.GradientTape() as tape:
    logits = tf.matmul(images, W) + b
    loss = loss_fn(labels, logits)

  gradients = tape.gradient(loss, [W, b])
  optimizer.apply_gradients(zip(gradients, [W, b]))
  return loss

@tf.function
def distributed_train_step(images, labels):
  per_replica_losses = strategy.run(train_step, args=(images, labels))
  return strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica_losses, axis=None)


optimizer = tf.keras.optimizers.Adam(learning_rate=0.001)
# dummy data creation
images = tf.random.normal((64, 784))
labels = tf.one_hot(tf.random.uniform((64,), minval=0, maxval=10, dtype=tf.int32), depth=10)

for i in range(100):
  loss = distributed_train_step(images,labels)
  if i%10 == 0 :
      print(f"step {i}, loss:{loss.numpy()}")
